import type { BankTransferInstructions } from '@poi/shared/schemas/invoices';

/** Where and how to pay by bank transfer: the お客様番号 goes before the payer name. */
export function TransferInstructions({ data, dueDate }: { data: BankTransferInstructions; dueDate?: string | null }) {
  return (
    <section aria-labelledby="transfer-heading" className="rounded-lg border border-blue-200 bg-blue-50 p-4 text-sm text-gray-900">
      <h2 id="transfer-heading" className="mb-2 font-semibold">
        お振込先
      </h2>
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1">
        <dt className="text-gray-700">金融機関</dt>
        <dd>
          {data.bank_name} {data.branch_name}
        </dd>
        <dt className="text-gray-700">口座</dt>
        <dd>
          {data.account_type} {data.account_number}
        </dd>
        <dt className="text-gray-700">口座名義</dt>
        <dd>{data.account_holder}</dd>
        <dt className="text-gray-700">お客様番号</dt>
        <dd className="font-mono font-semibold">{data.customer_number}</dd>
        {dueDate ? (
          <>
            <dt className="text-gray-700">お支払期限</dt>
            <dd>{dueDate.replaceAll('-', '/')}</dd>
          </>
        ) : null}
      </dl>
      <ul className="mt-2 list-disc space-y-1 pl-5">
        {data.notes.map((n) => (
          <li key={n}>{n}</li>
        ))}
      </ul>
    </section>
  );
}
