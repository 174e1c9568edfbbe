import { Fragment, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { toast } from 'react-toastify';
import { ArrowLeft, Copy, Tag, Trash2, Upload } from 'lucide-react';
import { formatDate, formatUnitPrice } from '@poi/shared/format';
import { messages } from '@poi/shared/messages';
import { Button } from '../../components/ui/button';
import { ConfirmDialog } from '../../components/ui/confirm-dialog';
import { ErrorBlock, LoadingBlock } from '../../components/ui/state-blocks';
import { isConsumerAccount, PER_SEARCH_TAX_NOTE, UnitPriceWithTax } from '../../components/ui/tax-inclusive-price';
import { useDataset, useDeleteDataset } from '../../features/datasets/api/datasets-api';
import { datasetKeys } from '../../features/datasets/api/keys';
import { copyDatasetId } from '../../features/datasets/components/dataset-card';
import { PriceChangeModal } from '../../features/datasets/components/price-change-modal';
import { PriceHistory } from '../../features/datasets/components/price-history';
import { PoiExportMenu } from '../../features/pois/components/poi-export-menu';
import { PoiImportModal } from '../../features/pois/components/poi-import-modal';
import { PoiSection } from '../../features/pois/components/poi-section';
import { getErrorMessage } from '../../lib/api-client';
import { useAuth } from '../../lib/auth-store';

/** A UUID that may wrap after its hyphens only, never inside a group of digits. */
function BreakAtHyphens({ text }: { text: string }) {
  const parts = text.split('-');
  return parts.map((part, i) => (
    <Fragment key={i}>
      {part}
      {i < parts.length - 1 ? (
        <>
          -<wbr />
        </>
      ) : null}
    </Fragment>
  ));
}

/** /marketplace/{datasetId} "データセット詳細": composes the datasets and POI features. */
export function DatasetDetailPage() {
  const { datasetId = '' } = useParams();
  const navigate = useNavigate();
  const client = useQueryClient();
  const query = useDataset(datasetId);
  const remove = useDeleteDataset();
  const [changingPrice, setChangingPrice] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [importing, setImporting] = useState(false);
  const consumer = isConsumerAccount(useAuth().user?.account_type);

  // Back within the app; a page opened directly (a shared link, a new tab) has no in-app entry
  // before it (React Router numbers its entries in history.state.idx), so go to its list instead.
  const back = () => ((window.history.state as { idx?: number } | null)?.idx ? navigate(-1) : navigate('/marketplace'));

  const onDelete = async () => {
    try {
      await remove.mutateAsync(datasetId);
      toast.success(messages.datasetDeleted);
      navigate('/datasets', { replace: true });
    } catch (error) {
      toast.error(`${messages.datasetDeleteFailed}: ${getErrorMessage(error, messages.datasetDeleteFailed)}`);
      setConfirmDelete(false);
    }
  };

  return (
    <div>
      <button type="button" onClick={back} className="mb-2 inline-flex min-h-11 items-center gap-1 text-sm font-medium text-blue-800 hover:underline">
        <ArrowLeft className="h-4 w-4" aria-hidden="true" />
        戻る
      </button>
      {query.isPending ? (
        <LoadingBlock />
      ) : query.isError ? (
        <>
          <h1 className="mb-4 text-2xl font-bold text-gray-900">データセット詳細</h1>
          <ErrorBlock message={getErrorMessage(query.error, messages.datasetDetailFailed)} onRetry={() => void query.refetch()} />
        </>
      ) : (
        <div className="space-y-6">
          <section aria-labelledby="dataset-name" className="rounded-lg border border-gray-200 bg-white p-5">
            <p className="text-sm font-medium text-gray-700">データセット詳細</p>
            {/* The name and description get the card's full width; the actions wrap on a row below. */}
            <div className="mt-1 min-w-0">
              <h1 id="dataset-name" className="break-words text-2xl font-bold text-gray-900">
                {query.data.name}
              </h1>
              <p className="mt-2 whitespace-pre-line break-words text-gray-800">{query.data.description || messages.noDescription}</p>
            </div>
            {query.data.can_manage ? (
              <div role="group" aria-label="データセットの操作" className="mt-4 flex flex-wrap gap-2">
                <Button variant="secondary" onClick={() => setChangingPrice(true)}>
                  <Tag className="h-4 w-4" aria-hidden="true" />
                  価格変更
                </Button>
                <Button variant="secondary" onClick={() => setImporting(true)}>
                  <Upload className="h-4 w-4" aria-hidden="true" />
                  POI一括インポート
                </Button>
                <PoiExportMenu datasetId={datasetId} datasetName={query.data.name} />
                <Button variant="danger" onClick={() => setConfirmDelete(true)}>
                  <Trash2 className="h-4 w-4" aria-hidden="true" />
                  削除
                </Button>
              </div>
            ) : null}
            {/* The ID's column is as wide as the ID, so it stays on one line (it may break at hyphens only). */}
            <dl className="mt-5 grid gap-4 text-sm sm:grid-cols-2 lg:grid-cols-[auto_repeat(3,minmax(0,1fr))]">
              <div>
                <dt className="text-gray-700">データセットID</dt>
                <dd className="mt-1 flex items-start gap-1">
                  <code className="min-w-0 font-mono text-xs leading-6 text-gray-900 [overflow-wrap:normal] [word-break:normal]">
                    <BreakAtHyphens text={query.data.dataset_id} />
                  </code>
                  <button type="button" aria-label="データセットIDをコピー" onClick={() => void copyDatasetId(query.data.dataset_id)} className="flex h-8 w-8 shrink-0 items-center justify-center rounded text-gray-700 hover:bg-gray-100">
                    <Copy className="h-3.5 w-3.5" aria-hidden="true" />
                  </button>
                </dd>
              </div>
              <div>
                <dt className="text-gray-700">1検索あたりの価格</dt>
                {consumer && query.data.price_per_search > 0 ? (
                  <dd className="mt-1 text-gray-900">
                    <UnitPriceWithTax price={query.data.price_per_search} className="text-lg font-bold" />
                    <span className="mt-1 block text-xs text-gray-700">{PER_SEARCH_TAX_NOTE}</span>
                  </dd>
                ) : (
                  <dd className="mt-1 text-lg font-bold text-gray-900">{formatUnitPrice(query.data.price_per_search)}</dd>
                )}
              </div>
              <div>
                <dt className="text-gray-700">種別</dt>
                <dd className="mt-1 text-gray-900">{query.data.is_platform_dataset ? 'プラットフォーム提供' : 'データプロバイダー提供'}</dd>
              </div>
              <div>
                <dt className="text-gray-700">作成日</dt>
                <dd className="mt-1 text-gray-900">{formatDate(query.data.created_at)}</dd>
              </div>
            </dl>
          </section>

          {query.data.stripe_product_id ? (
            <section aria-labelledby="payment-provider" className="rounded-lg border border-gray-200 bg-white p-5">
              <h2 id="payment-provider" className="font-semibold text-gray-900">
                決済連携(Stripe)
              </h2>
              <dl className="mt-3 grid gap-3 text-sm sm:grid-cols-2">
                <div>
                  <dt className="text-gray-700">商品ID</dt>
                  <dd className="mt-1 break-all font-mono text-xs text-gray-900">{query.data.stripe_product_id}</dd>
                </div>
                <div>
                  <dt className="text-gray-700">メーターID</dt>
                  <dd className="mt-1 break-all font-mono text-xs text-gray-900">{query.data.stripe_meter_id || '-'}</dd>
                </div>
              </dl>
            </section>
          ) : null}

          {query.data.pricing_history.length > 0 ? <PriceHistory entries={query.data.pricing_history} /> : null}

          <PoiSection
            key={datasetId}
            datasetId={datasetId}
            canManage={query.data.can_manage}
            onChanged={() => void client.invalidateQueries({ queryKey: datasetKeys.detail(datasetId) })}
          />
        </div>
      )}

      {importing ? (
        <PoiImportModal
          datasetId={datasetId}
          onClose={() => setImporting(false)}
          onImported={() => {
            toast.success(messages.importCompleted);
            void client.invalidateQueries({ queryKey: datasetKeys.detail(datasetId) });
          }}
        />
      ) : null}
      {changingPrice && query.data ? (
        <PriceChangeModal datasetId={datasetId} currentPrice={query.data.price_per_search} onClose={() => setChangingPrice(false)} />
      ) : null}
      {confirmDelete && query.data ? (
        <ConfirmDialog
          title="データセットを削除"
          message={`「${query.data.name}」と登録されているすべてのPOI・価格履歴を削除します。この操作は取り消せません。`}
          confirmLabel="削除する"
          busy={remove.isPending}
          onConfirm={() => void onDelete()}
          onCancel={() => setConfirmDelete(false)}
        />
      ) : null}
    </div>
  );
}
