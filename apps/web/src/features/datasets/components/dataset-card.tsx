import { Link } from 'react-router';
import { ChevronRight, Copy } from 'lucide-react';
import { formatDate, formatYen } from '@poi/shared/format';
import { messages } from '@poi/shared/messages';
import type { Dataset } from '@poi/shared/schemas/datasets';
import { isConsumerAccount, UnitPriceWithTax } from '../../../components/ui/tax-inclusive-price';
import { useAuth } from '../../../lib/auth-store';
import { copyText } from '../../../lib/browser-files';

export async function copyDatasetId(id: string): Promise<void> {
  await copyText(id, { success: messages.copyIdSuccess, failure: messages.copyIdFailed });
}

export function DatasetTypeBadge({ isPlatform }: { isPlatform: boolean }) {
  return isPlatform ? (
    <span className="inline-flex shrink-0 items-center rounded-full bg-indigo-100 px-2 py-0.5 text-xs font-medium text-indigo-900">プラットフォーム</span>
  ) : (
    <span className="inline-flex shrink-0 items-center rounded-full bg-emerald-100 px-2 py-0.5 text-xs font-medium text-emerald-900">プロバイダー</span>
  );
}

/** A card of the dataset grid (the console specification's "Dataset list"). Clicking the card copies the ID. */
export function DatasetCard({ dataset }: { dataset: Dataset }) {
  // 総額表示: trial and individual viewers decide with the tax-inclusive price.
  const withTax = isConsumerAccount(useAuth().user?.account_type) && dataset.price_per_search > 0;
  return (
    <article
      aria-label={dataset.name}
      className="group flex h-full cursor-pointer flex-col rounded-lg border border-gray-200 bg-white p-5 shadow-sm transition hover:border-blue-400 hover:shadow"
      onClick={() => void copyDatasetId(dataset.dataset_id)}
    >
      <div className="flex items-start justify-between gap-2">
        <h2 className="min-w-0 break-words font-semibold text-gray-900">{dataset.name}</h2>
        <DatasetTypeBadge isPlatform={dataset.is_platform_dataset} />
      </div>
      <p className="mt-2 line-clamp-3 flex-1 text-sm text-gray-700">{dataset.description || messages.noDescription}</p>
      <button
        type="button"
        title="クリックでIDをコピー"
        aria-label={`データセットID ${dataset.dataset_id} をコピー`}
        onClick={(e) => {
          e.stopPropagation();
          void copyDatasetId(dataset.dataset_id);
        }}
        className="mt-3 flex w-full items-center gap-1 rounded bg-gray-100 px-2 py-1 text-left hover:bg-gray-200"
      >
        <code className="min-w-0 flex-1 truncate font-mono text-xs text-gray-800">{dataset.dataset_id}</code>
        <Copy className="h-3.5 w-3.5 shrink-0 text-gray-700" aria-hidden="true" />
      </button>
      <dl className="mt-3 flex items-end justify-between gap-2 text-sm">
        <div>
          <dt className="sr-only">1検索あたりの価格</dt>
          <dd className="text-lg font-bold text-gray-900">
            {withTax ? <UnitPriceWithTax price={dataset.price_per_search} /> : formatYen(dataset.price_per_search, 2)}
            <span className="ml-1 text-xs font-normal text-gray-700">/ 検索</span>
          </dd>
        </div>
        <div className="text-right">
          <dt className="sr-only">作成日</dt>
          <dd className="text-xs text-gray-700">{formatDate(dataset.created_at)}</dd>
        </div>
      </dl>
      <Link
        to={`/marketplace/${dataset.dataset_id}`}
        onClick={(e) => e.stopPropagation()}
        className="mt-1 inline-flex min-h-11 items-center gap-1 self-start text-sm font-medium text-blue-800 hover:underline"
      >
        詳細を見る
        <ChevronRight className="h-4 w-4" aria-hidden="true" />
      </Link>
    </article>
  );
}
