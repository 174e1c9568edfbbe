import { useEffect, useId, useState } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { toast } from 'react-toastify';
import { z } from 'zod';
import { formatYen } from '@poi/shared/format';
import { ACCOUNT_TYPES, ACCOUNT_TYPE_LABELS } from '@poi/shared/roles';
import { pricingVersionBodySchema, type PricingPreview, type PricingVersion, type PricingVersionBody } from '@poi/shared/schemas/pricing';
import { Button } from '../../../components/ui/button';
import { FormField, inputClass } from '../../../components/ui/form-field';
import { FormModal } from '../../../components/ui/form-modal';
import { PageHeader } from '../../../components/ui/page-header';
import { ErrorBlock, LoadingBlock } from '../../../components/ui/state-blocks';
import { getErrorMessage, getFieldErrorMessage } from '../../../lib/api-client';
import { DataTable, type Column } from '../../../components/ui/data-table';
import { previewPricing, useCreatePricing, useDeletePricing, usePricingHistory, useUpdatePricing } from '../api/admin-pricing-api';
import { AccountTypeOptions, dateOnly } from '../../../components/admin/admin-labels';
import { ReasonDialog } from '../../../components/admin/reason-dialog';

/** One list of pricing versions under its own heading (the section's label, by `id`). */
function PricingTable({ id, title, caption, rows, columns }: { id: string; title: string; caption: string; rows: PricingVersion[]; columns: Array<Column<PricingVersion>> }) {
  return (
    <section aria-labelledby={id}>
      <h2 id={id} className="mb-2 text-lg font-semibold text-gray-900">
        {title}
      </h2>
      <DataTable caption={caption} rows={rows} rowKey={(v) => String(v.id)} columns={columns} />
    </section>
  );
}

/** Whole yen as on every screen (¥10,000); a fee set with sen shows them (¥9,800.50), never rounded on the admin's own record. */
const monthlyFee = (v: number) => formatYen(v, Number.isInteger(v) ? 0 : 2);

export const FIELD_LABELS: Record<string, string> = {
  base_fee: '基本料金(円/検索)',
  free_searches_per_month: '月間無料検索数',
  monthly_fee: '月額料金(円)',
  provider_share_percent: '提供者への分配率(%)',
  rate_limit_per_minute: 'レート制限(回/分)',
  max_api_keys: 'APIキーの上限',
};
const NUMBER_FIELDS = Object.keys(FIELD_LABELS) as Array<keyof typeof FIELD_LABELS>;
const tomorrowJst = () => new Date(Date.now() + 33 * 3600_000).toISOString().slice(0, 10);

/** What the inputs hold: text, as typed. */
const valuesSchema = z.object({
  account_type: z.string(),
  effective_from: z.string(),
  base_fee: z.string(),
  free_searches_per_month: z.string(),
  monthly_fee: z.string(),
  provider_share_percent: z.string(),
  rate_limit_per_minute: z.string(),
  max_api_keys: z.string(),
  reason: z.string(),
});
type Values = z.infer<typeof valuesSchema>;

/** The inputs as numbers (an empty one missing), checked with the same schema the server applies. */
const pricingFormSchema = valuesSchema
  .transform((values): unknown => ({ ...values, ...Object.fromEntries(NUMBER_FIELDS.map((f) => [f, values[f as keyof Values] === '' ? undefined : Number(values[f as keyof Values])])) }))
  .pipe(pricingVersionBodySchema);

/** The form's values checked as the form does: the first error per field. */
export function validatePricingForm(values: Values): { body?: PricingVersionBody; errors: Record<string, string> } {
  const parsed = pricingFormSchema.safeParse(values);
  if (parsed.success) return { body: parsed.data, errors: {} };
  const errors: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const field = String(issue.path[0] ?? '');
    errors[field] ??= issue.message;
  }
  return { errors };
}


/** /admin/pricing: the version in force per account type, the history, and new versions from tomorrow on. */
export function AdminPricingPage() {
  const history = usePricingHistory();
  const [creating, setCreating] = useState<PricingVersion | 'new' | null>(null);
  const [deleting, setDeleting] = useState<PricingVersion | null>(null);
  const remove = useDeletePricing();

  if (history.isPending) return <LoadingBlock />;
  if (history.isError) return <ErrorBlock message={getErrorMessage(history.error, '料金設定の取得に失敗しました')} onRetry={() => void history.refetch()} />;
  const versions = history.data.versions;
  // "Now" is when the list was read: a version starting later is a plan (editable), not in force.
  const now = history.dataUpdatedAt;
  const isFuture = (v: PricingVersion) => new Date(v.effective_from).getTime() > now;
  const current = ACCOUNT_TYPES.map((t) =>
    versions.filter((v) => v.account_type === t && new Date(v.effective_from).getTime() <= now).sort((a, b) => b.effective_from.localeCompare(a.effective_from))[0],
  ).filter((v): v is PricingVersion => !!v);
  const ordered = [...versions].sort((a, b) => b.effective_from.localeCompare(a.effective_from) || a.account_type.localeCompare(b.account_type));
  // Long headers break before their unit only (「基本料金 / (円/検索)」), so both tables fit at 1280 px.
  const wrapHead = 'px-3 py-2 text-right align-bottom font-medium';
  const head = (field: string) => {
    const label = FIELD_LABELS[field]!;
    const at = label.indexOf('(');
    // Each part stays whole (on a phone the table scrolls in its region rather than breaking 「料金」).
    if (at < 0) return { key: field, header: <span className="whitespace-nowrap">{label}</span> };
    return {
      key: field,
      header: (
        <>
          <span className="inline-block whitespace-nowrap">{label.slice(0, at)}</span>
          <span className="inline-block whitespace-nowrap">{label.slice(at)}</span>
        </>
      ),
    };
  };
  const columns = (withActions: boolean) => [
    { header: 'アカウント種別', cell: (v: PricingVersion) => ACCOUNT_TYPE_LABELS[v.account_type] },
    { header: '適用開始', cell: (v: PricingVersion) => `${dateOnly(v.effective_from)}${isFuture(v) ? '(予定)' : ''}` },
    { ...head('base_fee'), headerClassName: wrapHead, cell: (v: PricingVersion) => formatYen(v.base_fee, 2), align: 'right' as const },
    { ...head('free_searches_per_month'), headerClassName: wrapHead, cell: (v: PricingVersion) => v.free_searches_per_month.toLocaleString('ja-JP'), align: 'right' as const },
    { ...head('monthly_fee'), headerClassName: wrapHead, cell: (v: PricingVersion) => monthlyFee(v.monthly_fee), align: 'right' as const },
    { ...head('provider_share_percent'), headerClassName: wrapHead, cell: (v: PricingVersion) => `${v.provider_share_percent}%`, align: 'right' as const },
    { ...head('rate_limit_per_minute'), headerClassName: wrapHead, cell: (v: PricingVersion) => v.rate_limit_per_minute.toLocaleString('ja-JP'), align: 'right' as const },
    { ...head('max_api_keys'), headerClassName: wrapHead, cell: (v: PricingVersion) => v.max_api_keys, align: 'right' as const },
    ...(withActions
      ? [
          {
            header: '操作',
            stickyEnd: true,
            cell: (v: PricingVersion) =>
              isFuture(v) ? (
                <span className="flex gap-1">
                  <Button variant="secondary" onClick={() => setCreating(v)} aria-label={`${ACCOUNT_TYPE_LABELS[v.account_type]} ${dateOnly(v.effective_from)} の設定を編集`}>
                    編集
                  </Button>
                  <Button variant="ghost" onClick={() => setDeleting(v)} aria-label={`${ACCOUNT_TYPE_LABELS[v.account_type]} ${dateOnly(v.effective_from)} の設定を削除`}>
                    削除
                  </Button>
                </span>
              ) : (
                '—'
              ),
          },
        ]
      : []),
  ];

  return (
    <div className="space-y-6">
      <PageHeader
        title="料金設定"
        description="料金は日本時間の明日以降から適用できます(さかのぼる変更はできません)。適用前の設定だけ編集・削除できます。"
        actions={<Button onClick={() => setCreating('new')}>新しい料金設定</Button>}
      />
      <PricingTable id="current-h" title="現在の料金" caption="現在の料金(アカウント種別ごと)" rows={current} columns={columns(false)} />
      <PricingTable id="history-h" title="履歴と予定" caption="料金設定の履歴と予定" rows={ordered} columns={columns(true)} />
      {creating ? <PricingForm editing={creating === 'new' ? null : creating} onClose={() => setCreating(null)} /> : null}
      {deleting ? (
        <ReasonDialog
          title="料金設定を削除"
          description={
            <p>
              {ACCOUNT_TYPE_LABELS[deleting.account_type]} の {dateOnly(deleting.effective_from)} から適用予定の料金設定を削除します。
            </p>
          }
          submitLabel="削除する"
          onClose={() => setDeleting(null)}
          onSubmit={async (reason) => {
            await remove.mutateAsync({ id: deleting.id, reason });
            toast.success('料金設定を削除しました');
          }}
        />
      ) : null}
    </div>
  );
}

function PricingForm({ editing, onClose }: { editing: PricingVersion | null; onClose: () => void }) {
  const formId = useId();
  const [preview, setPreview] = useState<PricingPreview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const create = useCreatePricing();
  const update = useUpdatePricing(editing?.id ?? 0);
  const {
    register,
    handleSubmit,
    subscribe,
    formState: { errors, isSubmitting },
  } = useForm<Values, unknown, PricingVersionBody>({
    resolver: zodResolver(pricingFormSchema),
    // Messages stay until the next submit.
    reValidateMode: 'onSubmit',
    defaultValues: {
      account_type: editing?.account_type ?? 'individual',
      effective_from: editing ? new Date(new Date(editing.effective_from).getTime() + 9 * 3600_000).toISOString().slice(0, 10) : tomorrowJst(),
      base_fee: String(editing?.base_fee ?? ''),
      free_searches_per_month: String(editing?.free_searches_per_month ?? ''),
      monthly_fee: String(editing?.monthly_fee ?? ''),
      provider_share_percent: String(editing?.provider_share_percent ?? ''),
      rate_limit_per_minute: String(editing?.rate_limit_per_minute ?? ''),
      max_api_keys: String(editing?.max_api_keys ?? ''),
      reason: '',
    },
  });

  // Any change after the preview asks for a new one before saving.
  useEffect(() => subscribe({ formState: { values: true }, callback: () => setPreview(null) }), [subscribe]);

  const submit = handleSubmit(async (body) => {
    setError(null);
    try {
      if (!preview) {
        // First the preview of what changes; saving is the second, confirming step.
        setPreview(await previewPricing(body));
      } else {
        if (editing) {
          const { account_type: _type, ...changes } = body;
          await update.mutateAsync(changes);
        } else await create.mutateAsync(body);
        toast.success(editing ? '料金設定を変更しました' : '料金設定を作成しました');
        onClose();
      }
    } catch (err) {
      setError(getFieldErrorMessage(err, '料金設定を保存できませんでした'));
    }
  });

  const field = (name: keyof Values, label: string, props: Record<string, unknown> = {}) => (
    <FormField id={`${formId}-${name}`} label={label} required error={errors[name]?.message}>
      <input id={`${formId}-${name}`} className={inputClass} aria-invalid={errors[name] ? true : undefined} {...props} {...register(name)} />
    </FormField>
  );

  return (
    <FormModal
      title={editing ? '料金設定の編集' : '新しい料金設定'}
      formId={formId}
      submitLabel={preview ? 'この内容で保存する' : '変更内容を確認する'}
      submitting={isSubmitting}
      error={error}
      onClose={onClose}
      size="lg"
    >
      <form id={formId} noValidate onSubmit={(e) => void submit(e)} className="grid grid-cols-1 gap-4 sm:grid-cols-2">
        <FormField id={`${formId}-account_type`} label="アカウント種別" required>
          <select
            id={`${formId}-account_type`}
            className={inputClass}
            disabled={!!editing}
            {...register('account_type')}
          >
            <AccountTypeOptions />
          </select>
        </FormField>
        {field('effective_from', '適用開始日(日本時間)', { type: 'date', min: tomorrowJst() })}
        {field('base_fee', FIELD_LABELS.base_fee!, { type: 'number', step: '0.01', min: 0, max: 1000, inputMode: 'decimal' })}
        {field('free_searches_per_month', FIELD_LABELS.free_searches_per_month!, { type: 'number', step: 1, min: 0, inputMode: 'numeric' })}
        {field('monthly_fee', FIELD_LABELS.monthly_fee!, { type: 'number', step: '0.01', min: 0, inputMode: 'decimal' })}
        {field('provider_share_percent', FIELD_LABELS.provider_share_percent!, { type: 'number', step: '0.01', min: 0, max: 100, inputMode: 'decimal' })}
        {field('rate_limit_per_minute', FIELD_LABELS.rate_limit_per_minute!, { type: 'number', step: 1, min: 1, inputMode: 'numeric' })}
        {field('max_api_keys', FIELD_LABELS.max_api_keys!, { type: 'number', step: 1, min: 1, max: 1000, inputMode: 'numeric' })}
        <div className="sm:col-span-2">
          <FormField id={`${formId}-reason`} label="理由(監査ログに記録されます)" required error={errors.reason?.message}>
            <textarea id={`${formId}-reason`} rows={2} className={inputClass} {...register('reason')} />
          </FormField>
        </div>
        {preview ? (
          <section aria-labelledby={`${formId}-preview`} className="rounded-md border border-blue-200 bg-blue-50 p-3 text-sm text-gray-900 sm:col-span-2" role="status">
            <h3 id={`${formId}-preview`} className="font-semibold">
              変更内容の確認
            </h3>
            <p className="mt-1">
              {ACCOUNT_TYPE_LABELS[preview.account_type]}({preview.affected_users.toLocaleString('ja-JP')}人)に {preview.effective_from.replaceAll('-', '/')} 00:00(日本時間)から適用されます。
            </p>
            {preview.changes.length ? (
              <ul className="mt-2 list-disc pl-5">
                {preview.changes.map((c) => (
                  <li key={c.field}>
                    {FIELD_LABELS[c.field]}: {c.from === null ? '(新規)' : c.from.toLocaleString('ja-JP')} → {c.to.toLocaleString('ja-JP')}
                  </li>
                ))}
              </ul>
            ) : (
              <p className="mt-2">直前の設定から変わる項目はありません。</p>
            )}
          </section>
        ) : null}
      </form>
    </FormModal>
  );
}
