import type { AuditEntry } from '@poi/shared/schemas/users';
import { dateTime } from './admin-labels';

const ACTION_LABELS: Record<string, string> = {
  'user.change_type': '種別・権限の変更',
  'user.suspend': 'ユーザー停止',
  'user.activate': 'ユーザー再開',
  'user.account_type_changed': 'アカウント種別の変更',
  'corporate_account.applied': '法人申し込み',
  'corporate_account.created': '法人アカウント作成',
  'corporate_account.activated': '法人アカウント承認',
  'corporate_account.reactivated': '法人アカウント再開',
  'corporate_account.updated': '法人情報の変更',
  'corporate_account.suspended': '法人アカウント停止',
  'corporate_account.rejected': '法人申し込み却下',
  'corporate_account.member_added': 'メンバー追加',
  'corporate_account.member_removed': 'メンバー削除',
  'pricing_version.created': '料金設定の作成',
  'pricing_version.updated': '料金設定の変更',
  'pricing_version.deleted': '料金設定の削除',
  'billing.month_closed': '月次締め',
  'invoice.issued': '請求書の発行',
  'invoice.carried_over': '少額のため翌月に繰越',
  'invoice.overdue': '支払期限超過',
  'invoice.payment_recorded': '入金の記録',
  'invoice.card_payment_failed': 'カード決済の失敗',
  'billing_account.card_saved': 'カードの登録',
  'billing_account.card_removed': 'カードの削除',
  'billing_account.card_payment_credited': 'カード決済の超過分をクレジット',
  'billing_account.details_updated': '請求先情報の変更',
};
export const actionLabel = (action: string) => ACTION_LABELS[action] ?? action;

const reasonOf = (e: AuditEntry) => {
  const after = e.after as { reason?: unknown } | null;
  return typeof after?.reason === 'string' ? after.reason : null;
};

/** Audit entries, newest first: when, who, what, and the reason given. */
export function AuditList({ entries, empty = '記録はまだありません' }: { entries: AuditEntry[]; empty?: string }) {
  if (!entries.length) return <p className="text-sm text-gray-700">{empty}</p>;
  return (
    <ol className="divide-y divide-gray-100 rounded-md border border-gray-200 bg-white text-sm">
      {entries.map((e) => (
        <li key={e.id} className="px-3 py-2">
          <div className="flex flex-wrap items-baseline justify-between gap-2">
            <span className="font-medium text-gray-900">{actionLabel(e.action)}</span>
            <time className="text-xs text-gray-700" dateTime={e.occurred_at}>
              {dateTime(e.occurred_at)}
            </time>
          </div>
          <p className="text-xs text-gray-700">
            {e.actor_email ?? 'システム'} → {e.target_type} {e.target_id.slice(0, 8)}
            {reasonOf(e) ? ` ・ 理由: ${reasonOf(e)}` : ''}
          </p>
        </li>
      ))}
    </ol>
  );
}

/** The "操作履歴" section of an admin detail dialog. */
export function AuditSection({ entries, headingId }: { entries: AuditEntry[]; headingId: string }) {
  return (
    <section aria-labelledby={headingId}>
      <h3 id={headingId} className="mb-1 font-semibold text-gray-900">
        操作履歴
      </h3>
      <AuditList entries={entries} />
    </section>
  );
}
