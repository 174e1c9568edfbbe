import { useState, type FormEvent } from 'react';
import { toast } from 'react-toastify';
import { ACCOUNT_TYPES, ACCOUNT_TYPE_LABELS, type AccountType } from '@poi/shared/roles';
import { ADMIN_USER_SORTS, type AdminUser } from '@poi/shared/schemas/users';
import { AccountTypeBadge } from '../../../components/ui/account-type-badge';
import { Button } from '../../../components/ui/button';
import { FormField, inputClass } from '../../../components/ui/form-field';
import { Modal } from '../../../components/ui/modal';
import { PageHeader } from '../../../components/ui/page-header';
import { EmptyBlock, ErrorBlock, LoadingBlock } from '../../../components/ui/state-blocks';
import { getErrorMessage } from '../../../lib/api-client';
import { useAuth } from '../../../lib/auth-store';
import { yen } from '../../../components/ui/billing-labels';
import { DataTable } from '../../../components/ui/data-table';
import { useActivateUser, useAdminUser, useAdminUsers, useChangeAccountType, useSuspendUser } from '../api/admin-users-api';
import { AccountTypeOptions, dateTime, DefinitionGrid, PAY_LABELS, ROLE_LABELS, USER_STATUS_LABELS } from '../../../components/admin/admin-labels';
import { AdminListPage, CsvButton } from '../../../components/admin/admin-list';
import { AuditSection } from '../../../components/admin/audit-list';
import { InvoiceSummaryList } from '../../../components/admin/invoice-summary-list';
import { ReasonDialog } from '../../../components/admin/reason-dialog';
import { useUrlParams } from '../../../lib/use-url-params';

const PAGE_SIZE = 50;
const DEFAULTS = { q: '', account_type: '', role: '', status: '', payment_method: '', card_failed: '', created_from: '', created_to: '', sort: 'created_at', order: 'desc', page: '1' };
const SORT_LABELS: Record<string, string> = { created_at: '登録日時', email: 'メールアドレス', display_name: '表示名', last_login_at: '最終ログイン' };

/** /admin/users: search, filters, sort and paging kept in the URL; a user's detail and the changes an admin makes. */
export function AdminUsersPage() {
  const [view, update] = useUrlParams(DEFAULTS, {
    account_type: ['', ...ACCOUNT_TYPES],
    role: ['', 'user', 'admin'],
    status: ['', 'active', 'suspended'],
    payment_method: ['', 'card', 'bank_transfer', 'none'],
    card_failed: ['', '1'],
    sort: ADMIN_USER_SORTS,
    order: ['asc', 'desc'],
  });
  const page = Number(view.page);
  const { page: _page, ...filters } = view;
  const users = useAdminUsers({ ...filters, limit: String(PAGE_SIZE), offset: String((page - 1) * PAGE_SIZE) });
  const [keyword, setKeyword] = useState(view.q);
  const [openId, setOpenId] = useState<string | null>(null);

  const search = (e: FormEvent) => {
    e.preventDefault();
    update({ q: keyword.trim() });
  };
  const select = (name: keyof typeof DEFAULTS, label: string, options: Array<[string, string]>) => (
    <label className="text-sm text-gray-800">
      {label}
      <select className={inputClass} value={view[name]} onChange={(e) => update({ [name]: e.target.value })}>
        {options.map(([v, l]) => (
          <option key={v} value={v}>
            {l}
          </option>
        ))}
      </select>
    </label>
  );

  let body;
  if (users.isPending) body = <LoadingBlock />;
  else if (users.isError) body = <ErrorBlock message={getErrorMessage(users.error, 'ユーザー一覧の取得に失敗しました')} onRetry={() => void users.refetch()} />;
  else if (users.data.total === 0) body = <EmptyBlock message="条件に合うユーザーはいません" />;
  else
    body = (
      <AdminListPage total={users.data.total} page={page} pageSize={PAGE_SIZE} onPage={(p) => update({ page: String(p) })}>
        <DataTable<AdminUser>
          caption="ユーザー一覧"
          rows={users.data.users}
          rowKey={(u) => u.id}
          columns={[
            {
              header: 'ユーザー',
              cell: (u) => (
                <button type="button" className="min-h-6 text-left text-blue-700 underline hover:text-blue-900" onClick={() => setOpenId(u.id)}>
                  <span className="block">{u.display_name ?? '(未設定)'}</span>
                  <span className="block text-xs text-gray-700">{u.email}</span>
                </button>
              ),
            },
            { header: '種別', cell: (u) => <AccountTypeBadge type={u.account_type} /> },
            { header: '権限', cell: (u) => ROLE_LABELS[u.role] },
            { header: '状態', cell: (u) => <span className={u.status === 'suspended' ? 'font-medium text-red-800' : ''}>{USER_STATUS_LABELS[u.status]}</span> },
            { header: '支払方法', cell: (u) => PAY_LABELS[u.payment_method ?? 'none'] },
            { header: '登録日時', cell: (u) => dateTime(u.created_at) },
            { header: '最終ログイン', cell: (u) => dateTime(u.last_login_at) },
          ]}
        />
      </AdminListPage>
    );

  return (
    <div>
      <PageHeader
        title="ユーザー管理"
        description="検索・絞り込み・並び替えの条件はURLに保存されます。停止や種別変更には理由が必要です。"
        actions={<CsvButton url="/console/v1/admin/users.csv" filename="users.csv" params={filters} />}
      />
      <form role="search" aria-label="ユーザー検索" onSubmit={search} className="mb-3 flex flex-wrap items-end gap-2">
        <label className="min-w-0 flex-1 text-sm text-gray-800">
          メールアドレス・名前・ID
          <input type="search" className={inputClass} value={keyword} onChange={(e) => setKeyword(e.target.value)} maxLength={100} />
        </label>
        <Button type="submit">検索</Button>
      </form>
      <div className="mb-4 grid grid-cols-2 gap-2 sm:grid-cols-4 lg:grid-cols-8">
        {select('account_type', 'アカウント種別', [['', 'すべて'], ...ACCOUNT_TYPES.map((t): [string, string] => [t, ACCOUNT_TYPE_LABELS[t]])])}
        {select('role', '権限', [['', 'すべて'], ['user', '一般'], ['admin', '管理者']])}
        {select('status', '状態', [['', 'すべて'], ['active', '有効'], ['suspended', '停止中']])}
        {select('payment_method', '支払方法', [['', 'すべて'], ['card', 'カード'], ['bank_transfer', '銀行振込'], ['none', '未登録']])}
        <label className="text-sm text-gray-800">
          登録日(から)
          <input type="date" className={inputClass} value={view.created_from} onChange={(e) => update({ created_from: e.target.value })} />
        </label>
        <label className="text-sm text-gray-800">
          登録日(まで)
          <input type="date" className={inputClass} value={view.created_to} onChange={(e) => update({ created_to: e.target.value })} />
        </label>
        {select('sort', '並び順', ADMIN_USER_SORTS.map((s): [string, string] => [s, SORT_LABELS[s]!]))}
        {select('order', '順序', [['desc', '降順'], ['asc', '昇順']])}
      </div>
      <label className="mb-4 flex min-h-6 items-center gap-2 text-sm text-gray-800">
        <input type="checkbox" className="h-4 w-4" checked={view.card_failed === '1'} onChange={(e) => update({ card_failed: e.target.checked ? '1' : '' })} />
        カード決済に失敗している請求書があるユーザーのみ(法人はオーナー)
      </label>
      {body}
      {openId ? <UserDetail id={openId} onClose={() => setOpenId(null)} /> : null}
    </div>
  );
}

type Dialog = 'type' | 'suspend' | 'activate' | null;

function UserDetail({ id, onClose }: { id: string; onClose: () => void }) {
  const detail = useAdminUser(id);
  const me = useAuth().user;
  const [dialog, setDialog] = useState<Dialog>(null);
  // Both are set from the user when the change dialog opens.
  const [accountType, setAccountType] = useState<AccountType>('trial');
  const [role, setRole] = useState<'user' | 'admin'>('user');
  const suspend = useSuspendUser(id);
  const activate = useActivateUser(id);
  const changeType = useChangeAccountType(id);

  let content;
  if (detail.isPending) content = <LoadingBlock />;
  else if (detail.isError) content = <ErrorBlock message={getErrorMessage(detail.error, 'ユーザー情報の取得に失敗しました')} onRetry={() => void detail.refetch()} />;
  else {
    const { user, usage_this_month: usage, api_keys: keys, invoices, audit } = detail.data;
    content = (
      <div className="space-y-5 text-sm">
        <DefinitionGrid
          items={[
            ['メールアドレス', user.email],
            ['表示名', user.display_name ?? '(未設定)'],
            ['アカウント種別', ACCOUNT_TYPE_LABELS[user.account_type]],
            ['権限', ROLE_LABELS[user.role]],
            ['状態', `${USER_STATUS_LABELS[user.status]}${user.status_reason ? `(${user.status_reason})` : ''}`],
            ['支払方法', PAY_LABELS[user.payment_method ?? 'none']],
            ['登録日時', dateTime(user.created_at)],
            ['最終ログイン', dateTime(user.last_login_at)],
            ['ユーザーID', user.id],
          ]}
        />
        <section aria-labelledby="usage-h">
          <h3 id="usage-h" className="mb-1 font-semibold text-gray-900">
            今月の利用({usage.year_month})
          </h3>
          <p className="text-gray-900">
            検索 {usage.searches.toLocaleString('ja-JP')} 回(うち無料 {usage.free_searches.toLocaleString('ja-JP')} 回)・利用額 {yen(Math.floor(usage.amount))}(税抜・概算)
          </p>
        </section>
        <section aria-labelledby="keys-h">
          <h3 id="keys-h" className="mb-1 font-semibold text-gray-900">
            APIキー({keys.length})
          </h3>
          {keys.length ? (
            <ul className="space-y-1">
              {keys.map((k) => (
                <li key={k.id} className="text-gray-900">
                  {k.name} <code className="text-xs">{k.prefix}…</code> {k.revoked_at ? '(無効化済み)' : ''} ・ 最終利用 {dateTime(k.last_used_at)}
                </li>
              ))}
            </ul>
          ) : (
            <p className="text-gray-700">APIキーはありません</p>
          )}
        </section>
        <InvoiceSummaryList invoices={invoices} headingId="inv-h" />
        <AuditSection entries={audit} headingId="audit-h" />
      </div>
    );
  }
  const user = detail.data?.user;
  const self = !!user && me?.id === user.id;
  return (
    <>
      <Modal
        title={user ? `ユーザー詳細: ${user.display_name ?? user.email}` : 'ユーザー詳細'}
        onClose={onClose}
        size="lg"
        footer={
          user ? (
            <>
              <Button
                variant="secondary"
                onClick={() => {
                  setAccountType(user.account_type);
                  setRole(user.role);
                  setDialog('type');
                }}
              >
                種別・権限を変更
              </Button>
              {user.status === 'active' ? (
                <Button variant="danger" disabled={self} title={self ? '自分自身は停止できません' : undefined} onClick={() => setDialog('suspend')}>
                  停止する
                </Button>
              ) : (
                <Button onClick={() => setDialog('activate')}>再開する</Button>
              )}
            </>
          ) : null
        }
      >
        {content}
      </Modal>
      {user && dialog === 'suspend' ? (
        <ReasonDialog
          title="ユーザーを停止"
          description={
            <p>
              {user.email} を停止します。すべてのセッションが直ちに無効になり、APIキーも使えなくなります。
            </p>
          }
          submitLabel="停止する"
          onClose={() => setDialog(null)}
          onSubmit={async (reason) => {
            await suspend.mutateAsync(reason);
            toast.success('ユーザーを停止しました');
          }}
        />
      ) : null}
      {user && dialog === 'activate' ? (
        <ReasonDialog
          title="ユーザーを再開"
          description={<p>{user.email} を再開します。ログインとAPIキーが再び使えるようになります。</p>}
          submitLabel="再開する"
          onClose={() => setDialog(null)}
          onSubmit={async (reason) => {
            await activate.mutateAsync(reason);
            toast.success('ユーザーを再開しました');
          }}
        />
      ) : null}
      {user && dialog === 'type' ? (
        <ReasonDialog
          title="種別・権限の変更"
          description={<p>データ提供者から(へ)変更しても、すでに発生した収益は当時の受取人のまま変わりません。</p>}
          submitLabel="変更する"
          onClose={() => setDialog(null)}
          onSubmit={async (reason) => {
            await changeType.mutateAsync({ account_type: accountType, role, reason });
            toast.success('種別・権限を変更しました');
          }}
        >
          <FormField id="change-type" label="アカウント種別" required>
            <select id="change-type" className={inputClass} value={accountType} onChange={(e) => setAccountType(e.target.value as AccountType)}>
              <AccountTypeOptions />
            </select>
          </FormField>
          <FormField id="change-role" label="権限" required>
            <select id="change-role" className={inputClass} value={role} onChange={(e) => setRole(e.target.value as 'user' | 'admin')}>
              <option value="user">一般</option>
              <option value="admin">管理者</option>
            </select>
          </FormField>
        </ReasonDialog>
      ) : null}
    </>
  );
}
