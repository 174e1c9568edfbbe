import { useState } from 'react';
import { KeyRound, Plus } from 'lucide-react';
import { Link } from 'react-router';
import { toast } from 'react-toastify';
import { formatDate, formatDateTime, formatYen } from '@poi/shared/format';
import { API_KEY_STATUS_LABELS, type ApiKey, type ApiKeyStatus } from '@poi/shared/schemas/api-keys';
import { Button } from '../../components/ui/button';
import { ConfirmDialog } from '../../components/ui/confirm-dialog';
import { DataTable } from '../../components/ui/data-table';
import { PageHeader } from '../../components/ui/page-header';
import { EmptyBlock, ErrorBlock, LoadingBlock } from '../../components/ui/state-blocks';
import { getErrorMessage } from '../../lib/api-client';
import { useApiKeys, useRevokeApiKey, useRotateApiKey, type IssuedKey } from '../../features/api-keys/api/api-keys-api';
import { CreateKeyModal } from '../../features/api-keys/components/create-key-modal';
import { KeyRevealModal } from '../../features/api-keys/components/key-reveal-modal';
import { useDatasets } from '../../features/datasets/api/datasets-api';
import { DatasetPicker } from '../../features/datasets/components/dataset-picker';

/** The key table's header cell padding (the cells' own). */
const TH = 'px-4 py-3';

const statusClass: Record<ApiKeyStatus, string> = {
  active: 'bg-green-50 text-green-900 ring-green-600/30',
  rotating: 'bg-amber-50 text-amber-900 ring-amber-600/30',
  expired: 'bg-gray-100 text-gray-800 ring-gray-500/30',
  revoked: 'bg-red-50 text-red-900 ring-red-600/30',
};

function StatusBadge({ status }: { status: ApiKeyStatus }) {
  return <span className={`inline-flex rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${statusClass[status]}`}>{API_KEY_STATUS_LABELS[status]}</span>;
}

function Restrictions({ k }: { k: ApiKey }) {
  if (!k.allowed_ips.length && !k.allowed_referrers.length) return <span className="text-gray-700">制限なし</span>;
  return (
    <ul className="space-y-0.5 break-all font-mono text-xs">
      {k.allowed_ips.length ? <li>IP: {k.allowed_ips.join(', ')}</li> : null}
      {k.allowed_referrers.length ? <li>リファラー: {k.allowed_referrers.join(', ')}</li> : null}
    </ul>
  );
}

function expiryText(k: ApiKey): string {
  if (k.status === 'revoked') return `${formatDateTime(k.revoked_at)} に無効化`;
  if (!k.expires_at) return '無期限';
  return `${formatDateTime(k.expires_at)} まで`;
}

type Pending = { kind: 'revoke' | 'rotate'; key: ApiKey };

/** The key reveal with its curl example, which searches a dataset the user picks (datasets feature). */
function KeyReveal({ issued, onClose }: { issued: IssuedKey & { rotated?: boolean }; onClose: () => void }) {
  // Free datasets first: they work for every account, trial included. The cheapest is the default.
  const datasets = useDatasets({ type: 'all', sort: 'price_asc', limit: 1 });
  return (
    <KeyRevealModal
      secret={issued.key}
      name={issued.api_key.name}
      rotated={issued.rotated}
      onClose={onClose}
      datasets={{
        initial: datasets.data?.datasets[0] ?? null,
        loading: datasets.isPending,
        renderPicker: ({ id, value, onChange }) => (
          <DatasetPicker
            id={id}
            sort="price_asc"
            value={value}
            onChange={(d) => d && onChange(d)}
            describe={(d) => (d.price_per_search > 0 ? `1検索 ${formatYen(d.price_per_search)}` : '無料')}
          />
        ),
      }}
    />
  );
}

/** /api-keys composes the keys (api-keys) with the dataset picker of the curl example (datasets). */
export function ApiKeysPage() {
  const keys = useApiKeys();
  const revoke = useRevokeApiKey();
  const rotate = useRotateApiKey();
  const [creating, setCreating] = useState(false);
  const [revealed, setRevealed] = useState<(IssuedKey & { rotated?: boolean }) | null>(null);
  const [pending, setPending] = useState<Pending | null>(null);

  const atLimit = !!keys.data && keys.data.active_count >= keys.data.max_keys;

  const confirm = async () => {
    if (!pending) return;
    try {
      if (pending.kind === 'revoke') {
        await revoke.mutateAsync(pending.key.id);
        toast.success('APIキーを無効化しました');
      } else {
        const issued = await rotate.mutateAsync(pending.key.id);
        setRevealed({ ...issued, rotated: true });
        toast.success('APIキーをローテーションしました');
      }
      setPending(null);
    } catch (error) {
      toast.error(getErrorMessage(error, pending.kind === 'revoke' ? 'APIキーの無効化に失敗しました' : 'APIキーのローテーションに失敗しました'));
    }
  };

  const actions = (k: ApiKey) => (
    <div className="flex flex-wrap gap-2">
      {k.status === 'active' ? (
        <Button variant="secondary" className="px-3 py-1.5" onClick={() => setPending({ kind: 'rotate', key: k })}>
          ローテーション
        </Button>
      ) : null}
      {k.status === 'active' || k.status === 'rotating' ? (
        <Button variant="danger" className="px-3 py-1.5" onClick={() => setPending({ kind: 'revoke', key: k })}>
          無効化
        </Button>
      ) : null}
    </div>
  );

  let body;
  if (keys.isPending) body = <LoadingBlock />;
  else if (keys.isError) body = <ErrorBlock message={getErrorMessage(keys.error, 'APIキーの取得に失敗しました')} onRetry={() => void keys.refetch()} />;
  else if (!keys.data.api_keys.length)
    body = (
      <EmptyBlock message="APIキーはまだありません。キーを作成すると、公開検索APIを呼び出せます。">
        <Button onClick={() => setCreating(true)}>
          <Plus className="h-4 w-4" aria-hidden="true" />
          最初のAPIキーを作成
        </Button>
      </EmptyBlock>
    );
  else
    body = (
      <DataTable
        caption="APIキーの一覧"
        rows={keys.data.api_keys}
        rowKey={(k) => k.id}
        rowProps={(k) => ({ className: k.status === 'revoked' || k.status === 'expired' ? 'text-gray-600' : 'text-gray-900' })}
        className="overflow-x-auto rounded-lg border border-gray-200 bg-white"
        tableClassName="min-w-full divide-y divide-gray-200 text-sm"
        headClassName="bg-gray-50 text-left text-xs font-semibold text-gray-700"
        bodyClassName="divide-y divide-gray-200"
        columns={[
          { header: '名前', headerClassName: TH, className: 'max-w-48 break-words px-4 py-3 font-medium', cell: (k) => k.name },
          { header: 'キー', headerClassName: TH, className: 'whitespace-nowrap px-4 py-3 font-mono text-xs', cell: (k) => `${k.prefix}…` },
          { header: '作成日', headerClassName: TH, className: 'whitespace-nowrap px-4 py-3', cell: (k) => formatDate(k.created_at) },
          { header: '最終使用', headerClassName: TH, className: 'whitespace-nowrap px-4 py-3', cell: (k) => (k.last_used_at ? formatDateTime(k.last_used_at) : '未使用') },
          { header: '有効期限', headerClassName: TH, className: 'px-4 py-3', cell: expiryText },
          { header: '制限', headerClassName: TH, className: 'max-w-56 px-4 py-3', cell: (k) => <Restrictions k={k} /> },
          { header: '状態', headerClassName: TH, className: 'whitespace-nowrap px-4 py-3', cell: (k) => <StatusBadge status={k.status} /> },
          { header: <span className="sr-only">操作</span>, key: 'actions', headerClassName: TH, className: 'px-4 py-3', cell: actions },
        ]}
        // Cards on narrow screens, the table from md up.
        mobile={{
          label: 'APIキー',
          itemClassName: 'rounded-lg border border-gray-200 bg-white p-4',
          render: (k) => (
            <>
              <div className="flex items-start justify-between gap-2">
                <div className="min-w-0">
                  <p className="font-semibold text-gray-900 break-words">{k.name}</p>
                  <p className="font-mono text-xs text-gray-700">{k.prefix}…</p>
                </div>
                <StatusBadge status={k.status} />
              </div>
              <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
                <dt className="text-gray-700">作成日</dt>
                <dd>{formatDate(k.created_at)}</dd>
                <dt className="text-gray-700">最終使用</dt>
                <dd>{k.last_used_at ? formatDateTime(k.last_used_at) : '未使用'}</dd>
                <dt className="text-gray-700">有効期限</dt>
                <dd>{expiryText(k)}</dd>
                <dt className="text-gray-700">制限</dt>
                <dd className="min-w-0">
                  <Restrictions k={k} />
                </dd>
              </dl>
              <div className="mt-3">{actions(k)}</div>
            </>
          ),
        }}
      />
    );

  return (
    <div>
      <PageHeader
        title="APIキー管理"
        description={
          <>
            公開検索API(/api/v1/poi/search)を呼び出すためのキーです。使い方は{' '}
            <Link to="/docs/api" target="_blank" rel="noopener" className="text-blue-800 underline">
              APIドキュメント
            </Link>{' '}
            をご覧ください。
          </>
        }
        actions={
          <Button onClick={() => setCreating(true)} disabled={atLimit || keys.isPending}>
            <KeyRound className="h-4 w-4" aria-hidden="true" />
            APIキーを作成
          </Button>
        }
      />
      {keys.data ? (
        <p className="mb-4 text-sm text-gray-700">
          有効なキー: {keys.data.active_count} / {keys.data.max_keys}
          {atLimit ? '(上限に達しています。不要なキーを無効化すると作成できます)' : ''}
        </p>
      ) : null}
      {body}

      {creating ? (
        <CreateKeyModal
          onClose={() => setCreating(false)}
          onCreated={(issued) => {
            setCreating(false);
            setRevealed(issued);
            toast.success('APIキーを作成しました');
          }}
        />
      ) : null}
      {revealed ? <KeyReveal issued={revealed} onClose={() => setRevealed(null)} /> : null}
      {pending ? (
        <ConfirmDialog
          title={pending.kind === 'revoke' ? 'APIキーを無効化' : 'APIキーをローテーション'}
          message={
            pending.kind === 'revoke'
              ? `「${pending.key.name}」(${pending.key.prefix}…)を無効化します。このキーを使った検索は直ちに失敗するようになります。この操作は取り消せません。`
              : `「${pending.key.name}」(${pending.key.prefix}…)の代わりに新しいキーを発行します。古いキーは24時間後に無効になります。`
          }
          confirmLabel={pending.kind === 'revoke' ? '無効化する' : 'ローテーションする'}
          busy={revoke.isPending || rotate.isPending}
          onConfirm={() => void confirm()}
          onCancel={() => setPending(null)}
        />
      ) : null}
    </div>
  );
}
