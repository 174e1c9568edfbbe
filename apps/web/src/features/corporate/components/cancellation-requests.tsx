import { dateOnly } from '../../../components/admin/admin-labels';
import { useCancellationRequests } from '../api/cancellation-requests-api';

/**
 * /admin/corporate: corporate accounts whose owner asked to cancel (「解約申請中」), oldest first.
 * An administrator processes one by suspending the account at the end of the month (reason
 * 「解約申請による月末解約」); it then leaves this list. Nothing shows while there are none.
 */
export function CancellationRequests({ onOpen }: { onOpen: (corporateAccountId: string) => void }) {
  const requests = useCancellationRequests();
  if (!requests.data?.length) return null;
  return (
    <section aria-labelledby="cancellation-requests-heading" className="mb-4 rounded-lg border border-amber-200 bg-amber-50 p-4 text-sm text-gray-900">
      <h2 id="cancellation-requests-heading" className="font-semibold">
        解約申請中の法人アカウント({requests.data.length}件)
      </h2>
      <p className="mt-1 text-xs text-gray-800">月末に「停止」で解約を処理してください(理由: 解約申請による月末解約)。当月分は翌月1日の締めで請求されます。</p>
      <ul className="mt-2 space-y-1">
        {requests.data.map((r) => (
          <li key={r.id} className="flex flex-wrap items-baseline gap-x-2">
            <span className="rounded bg-amber-200 px-1.5 py-0.5 text-xs font-medium text-amber-950">解約申請中</span>
            <button type="button" className="min-h-6 text-left text-blue-800 underline hover:text-blue-900" onClick={() => onOpen(r.corporate_account_id)}>
              {r.company_name}
            </button>
            <span className="text-xs text-gray-800">
              {dateOnly(r.requested_at)} 受付{r.requested_by_email ? `・${r.requested_by_email}` : ''}
              {r.reason ? `・理由: ${r.reason}` : ''}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
