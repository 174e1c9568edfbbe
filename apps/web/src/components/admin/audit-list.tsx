import type { AuditEntry } from '@poi/shared/schemas/users';
import { auditActionLabel, auditTargetLabel, reasonLabel, statusLabel } from '@poi/shared/audit-labels';
import { dateTime } from './admin-labels';


const reasonOf = (e: AuditEntry) => {
  const after = e.after as { reason?: unknown } | null;
  return typeof after?.reason === 'string' ? reasonLabel(after.reason) : null;
};

/** 「発行済 → 支払期限超過」 when the row changed a status. */
const statusChangeOf = (e: AuditEntry) => {
  const before = (e.before as { status?: unknown } | null)?.status;
  const after = (e.after as { status?: unknown } | null)?.status;
  if (typeof after !== 'string' || before === after) return null;
  return typeof before === 'string' ? `${statusLabel(before)} → ${statusLabel(after)}` : statusLabel(after);
};

/** The target: its kind in Japanese, and a short id (a month is shown whole). */
const targetOf = (e: AuditEntry) => `${auditTargetLabel(e.target_type)} ${e.target_type === 'billing_month' ? e.target_id : e.target_id.slice(0, 8)}`;

/** Audit entries, newest first: when, who, what, and the reason given. */
export function AuditList({ entries, empty = '記録はまだありません' }: { entries: AuditEntry[]; empty?: string }) {
  if (!entries.length) return <p className="text-sm text-gray-700">{empty}</p>;
  return (
    <ol className="divide-y divide-gray-100 rounded-md border border-gray-200 bg-white text-sm">
      {entries.map((e) => (
        <li key={e.id} className="px-3 py-2">
          <div className="flex flex-wrap items-baseline justify-between gap-2">
            <span className="font-medium text-gray-900">{auditActionLabel(e.action)}</span>
            <time className="text-xs text-gray-700" dateTime={e.occurred_at}>
              {dateTime(e.occurred_at)}
            </time>
          </div>
          <p className="text-xs text-gray-700">
            {e.actor_email ?? 'システム'} → {targetOf(e)}
            {statusChangeOf(e) ? ` ・ 状態: ${statusChangeOf(e)}` : ''}
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
