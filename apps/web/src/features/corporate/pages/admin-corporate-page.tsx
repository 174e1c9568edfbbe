import { useState, type FormEvent } from 'react';
import { toast } from 'react-toastify';
import { CORPORATE_STATUSES, type CORPORATE_ROLES, type CorporateSummary } from '@poi/shared/schemas/corporate';
import { Button } from '../../../components/ui/button';
import { FormField, inputClass } from '../../../components/ui/form-field';
import { Modal } from '../../../components/ui/modal';
import { PageHeader } from '../../../components/ui/page-header';
import { EmptyBlock, ErrorBlock, LoadingBlock } from '../../../components/ui/state-blocks';
import { getErrorMessage } from '../../../lib/api-client';
import { PAYMENT_METHOD_LABELS, yen } from '../../../components/ui/billing-labels';
import { DataTable } from '../../../components/ui/data-table';
import {
  useActivateCorporate,
  useAddCorporateMember,
  useCorporate,
  useCorporateList,
  useRejectCorporate,
  useRemoveCorporateMember,
  useSuspendCorporate,
} from '../api/admin-corporate-api';
import { CORPORATE_ROLE_LABELS, CORPORATE_STATUS_LABELS, dateOnly, DefinitionGrid } from '../../../components/admin/admin-labels';
import { AdminListPage, CsvButton } from '../../../components/admin/admin-list';
import { focusAfterRemoval } from '../../../lib/focus-after-removal';
import { AuditSection } from '../../../components/admin/audit-list';
import { CancellationRequests } from '../components/cancellation-requests';
import { CorporateForm } from '../components/corporate-form';
import { InvoiceSummaryList } from '../../../components/admin/invoice-summary-list';
import { ReasonDialog } from '../../../components/admin/reason-dialog';
import { useUrlParams } from '../../../lib/use-url-params';

type CorporateRole = (typeof CORPORATE_ROLES)[number];

const PAGE_SIZE = 50;
const DEFAULTS = { status: '', q: '', page: '1' };

/** /admin/corporate: applications and accounts by status, search, detail, approval, members. */
export function AdminCorporatePage() {
  const [view, update] = useUrlParams(DEFAULTS, { status: ['', ...CORPORATE_STATUSES] });
  const page = Number(view.page);
  const list = useCorporateList({ status: view.status, q: view.q, limit: String(PAGE_SIZE), offset: String((page - 1) * PAGE_SIZE) });
  const [keyword, setKeyword] = useState(view.q);
  const [openId, setOpenId] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);

  const search = (e: FormEvent) => {
    e.preventDefault();
    update({ q: keyword.trim() });
  };

  let body;
  if (list.isPending) body = <LoadingBlock />;
  else if (list.isError) body = <ErrorBlock message={getErrorMessage(list.error, '法人アカウント一覧の取得に失敗しました')} onRetry={() => void list.refetch()} />;
  else if (list.data.total === 0) body = <EmptyBlock message={view.status === 'pending' ? '審査待ちのお申し込みはありません' : '条件に合う法人アカウントはありません'} />;
  else
    body = (
      <AdminListPage total={list.data.total} page={page} pageSize={PAGE_SIZE} onPage={(p) => update({ page: String(p) })}>
        <DataTable<CorporateSummary>
          caption="法人アカウント一覧"
          rows={list.data.accounts}
          rowKey={(c) => c.id}
          columns={[
            {
              header: '会社名',
              cell: (c) => (
                <button type="button" className="min-h-6 text-left text-blue-700 underline hover:text-blue-900" onClick={() => setOpenId(c.id)}>
                  <span className="block">{c.company_name}</span>
                  <span className="block text-xs text-gray-700">{c.company_name_kana}</span>
                </button>
              ),
            },
            { header: '状態', cell: (c) => CORPORATE_STATUS_LABELS[c.status] },
            { header: 'お客様番号', cell: (c) => c.customer_number ?? '—' },
            { header: '支払方法', cell: (c) => PAYMENT_METHOD_LABELS[c.payment_method] },
            { header: '与信限度額', cell: (c) => (c.credit_limit === null ? '—' : yen(c.credit_limit)), align: 'right' },
            { header: 'メンバー', cell: (c) => `${c.member_count}人`, align: 'right' },
            { header: '申込日', cell: (c) => dateOnly(c.created_at) },
          ]}
        />
      </AdminListPage>
    );

  return (
    <div>
      <PageHeader
        title="法人アカウント管理"
        description="請求書払いのお申し込みは、与信限度額と支払条件を決めて承認します。"
        actions={
          <>
            <CsvButton url="/console/v1/admin/corporate.csv" filename="corporate-accounts.csv" params={{ status: view.status, q: view.q }} />
            <Button onClick={() => setCreating(true)}>法人アカウントを作成</Button>
          </>
        }
      />
      <CancellationRequests onOpen={setOpenId} />
      <div className="mb-4 flex flex-wrap items-end gap-2">
        <label className="text-sm text-gray-800">
          状態
          <select className={inputClass} value={view.status} onChange={(e) => update({ status: e.target.value })}>
            <option value="">すべて</option>
            {CORPORATE_STATUSES.map((s) => (
              <option key={s} value={s}>
                {CORPORATE_STATUS_LABELS[s]}
              </option>
            ))}
          </select>
        </label>
        <form role="search" aria-label="法人アカウント検索" onSubmit={search} className="flex min-w-0 flex-1 items-end gap-2">
          <label className="min-w-0 flex-1 text-sm text-gray-800">
            会社名・カナ・お客様番号
            <input type="search" className={inputClass} value={keyword} maxLength={100} onChange={(e) => setKeyword(e.target.value)} />
          </label>
          <Button type="submit">検索</Button>
        </form>
      </div>
      {body}
      {openId ? <CorporateDetailDialog id={openId} onClose={() => setOpenId(null)} /> : null}
      {creating ? <CorporateForm editing={null} onClose={() => setCreating(false)} /> : null}
    </div>
  );
}

type Action = 'approve' | 'reject' | 'suspend' | 'activate' | 'add-member' | 'edit' | { remove: string } | null;

function CorporateDetailDialog({ id, onClose }: { id: string; onClose: () => void }) {
  const detail = useCorporate(id);
  const [action, setAction] = useState<Action>(null);
  const [creditLimit, setCreditLimit] = useState('');
  const [terms, setTerms] = useState('month_end_next_month');
  const [memberId, setMemberId] = useState('');
  const [memberRole, setMemberRole] = useState<CorporateRole>('member');
  const activate = useActivateCorporate(id);
  const reject = useRejectCorporate(id);
  const suspend = useSuspendCorporate(id);
  const addMember = useAddCorporateMember(id);
  const removeMember = useRemoveCorporateMember(id);
  // The button that opened the action: approving removes 「承認する」, removing a member its row.
  const [trigger, setTrigger] = useState<Element | null>(null);
  const openAction = (next: Action) => {
    setTrigger(document.activeElement);
    setAction(next);
  };
  // Focus then goes to the next row's action, else this dialog's heading, rather than to <body>.
  const keepFocus = () => {
    const home = trigger?.closest('dialog');
    focusAfterRemoval(trigger, () => home?.querySelector<HTMLElement>('h2'));
  };
  const run = (write: (reason: string) => Promise<unknown>, done: string) => async (reason: string) => {
    await write(reason);
    keepFocus();
    toast.success(done);
  };

  let content;
  if (detail.isPending) content = <LoadingBlock />;
  else if (detail.isError) content = <ErrorBlock message={getErrorMessage(detail.error, '法人アカウントの取得に失敗しました')} onRetry={() => void detail.refetch()} />;
  else {
    const { account: a, members, invoices, audit } = detail.data;
    content = (
      <div className="space-y-5 text-sm">
        <DefinitionGrid
          items={[
            ['状態', `${CORPORATE_STATUS_LABELS[a.status]}${a.status_reason ? `(${a.status_reason})` : ''}`],
            ['お客様番号', a.customer_number ?? '—'],
            ['会社名', `${a.company_name}(${a.company_name_kana})`],
            ['部署', a.department ?? '—'],
            ['住所', `〒${a.postal_code} ${a.address}`],
            ['電話番号', a.phone],
            ['請求担当者', a.billing_contact_name],
            ['請求書送付先', a.billing_emails.join(', ')],
            ['法人番号', a.corporate_number ?? '—'],
            ['登録番号', a.registration_number ?? '—'],
            ['支払方法', PAYMENT_METHOD_LABELS[a.payment_method]],
            ['与信限度額', a.credit_limit === null ? '—' : yen(a.credit_limit)],
            ['支払条件', a.payment_terms === 'month_end_next_month' ? '月末締め翌月末払い' : a.payment_terms],
          ]}
        />
        <section aria-labelledby="members-h">
          <div className="mb-1 flex items-center justify-between">
            <h3 id="members-h" className="font-semibold text-gray-900">
              メンバー({members.length})
            </h3>
            {a.status === 'active' || a.status === 'suspended' ? (
              <Button variant="secondary" onClick={() => openAction('add-member')}>
                メンバーを追加
              </Button>
            ) : null}
          </div>
          <ul className="divide-y divide-gray-100 rounded-md border border-gray-200">
            {members.map((m) => (
              <li key={m.id} className="flex flex-wrap items-center justify-between gap-2 px-3 py-2">
                <span>
                  {m.display_name ?? m.email} <span className="text-xs text-gray-700">{m.email}</span> ・ {CORPORATE_ROLE_LABELS[m.corporate_role]}
                </span>
                <Button variant="ghost" onClick={() => openAction({ remove: m.id })} aria-label={`${m.email} を外す`}>
                  外す
                </Button>
              </li>
            ))}
          </ul>
        </section>
        <InvoiceSummaryList invoices={invoices} headingId="c-inv-h" />
        <AuditSection entries={audit} headingId="c-audit-h" />
      </div>
    );
  }
  const a = detail.data?.account;
  return (
    <>
      <Modal
        title={a ? `法人アカウント: ${a.company_name}` : '法人アカウント'}
        onClose={onClose}
        size="lg"
        footer={
          a ? (
            <>
              {a.status !== 'rejected' ? (
                <Button variant="secondary" onClick={() => openAction('edit')}>
                  情報を編集
                </Button>
              ) : null}
              {a.status === 'pending' ? (
                <>
                  <Button variant="danger" onClick={() => openAction('reject')}>
                    却下する
                  </Button>
                  <Button onClick={() => openAction('approve')}>承認する</Button>
                </>
              ) : null}
              {a.status === 'active' ? (
                <Button variant="danger" onClick={() => openAction('suspend')}>
                  停止する
                </Button>
              ) : null}
              {a.status === 'suspended' ? <Button onClick={() => openAction('activate')}>再開する</Button> : null}
            </>
          ) : null
        }
      >
        {content}
      </Modal>
      {a && action === 'approve' ? (
        <ReasonDialog
          title="お申し込みを承認"
          description={<p>{a.company_name} を承認します。申込者がオーナーになり、請求先が作成されます。</p>}
          submitLabel="承認する"
          onClose={() => setAction(null)}
          onSubmit={async (reason) => {
            await activate.mutateAsync({ credit_limit: creditLimit === '' ? null : Number(creditLimit), payment_terms: terms, reason });
            keepFocus();
            toast.success('お申し込みを承認しました');
          }}
        >
          <FormField id="credit-limit" label="与信限度額(円、空欄は上限なし)">
            <input id="credit-limit" type="number" min={0} step={1} inputMode="numeric" className={inputClass} value={creditLimit} onChange={(e) => setCreditLimit(e.target.value)} />
          </FormField>
          <FormField id="terms" label="支払条件">
            <select id="terms" className={inputClass} value={terms} onChange={(e) => setTerms(e.target.value)}>
              <option value="month_end_next_month">月末締め翌月末払い</option>
            </select>
          </FormField>
        </ReasonDialog>
      ) : null}
      {a && action === 'edit' ? <CorporateForm editing={a} onClose={() => setAction(null)} /> : null}
      {a && action === 'reject' ? (
        <ReasonDialog
          title="お申し込みを却下"
          description={<p>{a.company_name} のお申し込みを却下します。理由は申込者のアップグレード画面に表示されます。</p>}
          submitLabel="却下する"
          onClose={() => setAction(null)}
          onSubmit={run((reason) => reject.mutateAsync(reason), 'お申し込みを却下しました')}
        />
      ) : null}
      {a && action === 'suspend' ? (
        <ReasonDialog
          title="法人アカウントを停止"
          description={<p>{a.company_name} を停止します。メンバー全員のAPIキーが直ちに使えなくなります(コンソールへのログインは可能です)。</p>}
          submitLabel="停止する"
          onClose={() => setAction(null)}
          onSubmit={run((reason) => suspend.mutateAsync(reason), '法人アカウントを停止しました')}
        />
      ) : null}
      {a && action === 'activate' ? (
        <ReasonDialog
          title="法人アカウントを再開"
          description={<p>{a.company_name} を再開します。メンバーのAPIキーが再び使えるようになります。</p>}
          submitLabel="再開する"
          onClose={() => setAction(null)}
          onSubmit={run((reason) => activate.mutateAsync({ reason }), '法人アカウントを再開しました')}
        />
      ) : null}
      {a && action === 'add-member' ? (
        <ReasonDialog
          title="メンバーを追加"
          description={<p>既存のユーザーをユーザーIDで追加します(ユーザー管理の詳細に表示されるID)。</p>}
          submitLabel="追加する"
          onClose={() => setAction(null)}
          onSubmit={run((reason) => addMember.mutateAsync({ user_id: memberId.trim(), role: memberRole, reason }), 'メンバーを追加しました')}
        >
          <FormField id="member-id" label="ユーザーID" required>
            <input id="member-id" className={inputClass} value={memberId} onChange={(e) => setMemberId(e.target.value)} />
          </FormField>
          <FormField id="member-role" label="役割" required>
            <select id="member-role" className={inputClass} value={memberRole} onChange={(e) => setMemberRole(e.target.value as CorporateRole)}>
              {Object.entries(CORPORATE_ROLE_LABELS).map(([v, l]) => (
                <option key={v} value={v}>
                  {l}
                </option>
              ))}
            </select>
          </FormField>
        </ReasonDialog>
      ) : null}
      {a && action && typeof action === 'object' ? (
        <ReasonDialog
          title="メンバーを外す"
          description={<p>このユーザーを {a.company_name} から外します。外れたユーザーはトライアルに戻ります。</p>}
          submitLabel="外す"
          onClose={() => setAction(null)}
          onSubmit={run((reason) => removeMember.mutateAsync({ userId: action.remove, reason }), 'メンバーを外しました')}
        />
      ) : null}
    </>
  );
}
