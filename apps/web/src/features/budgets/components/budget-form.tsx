import { useState, type FormEvent } from 'react';
import { toast } from 'react-toastify';
import { BUDGET_ALERT_THRESHOLDS, budgetBodySchema, type Budget } from '@poi/shared/schemas/budgets';
import { Button } from '../../../components/ui/button';
import { FormField, inputClass } from '../../../components/ui/form-field';
import { getErrorMessage } from '../../../lib/api-client';
import { useSaveBudget } from '../api/budgets-api';
import { yen } from '../../../components/ui/billing-labels';

const limitSchema = budgetBodySchema.shape.monthly_limit;

/** The alert rule the server applies (budgets.service.ts): a raised budget does not re-send a mail. */
const ALERT_RULE = '通知は各段階とも月に1回です。月の途中で予算を変更しても、今月すでに通知した段階のメールは再送されません(翌月にまた通知します)。';

/** The monthly budget: alert mails at 50/80/100 % and an optional hard stop of the public API. Keyed by the saved values, so a save resets the inputs. */
export function BudgetForm({ budget }: { budget: Budget }) {
  const [limit, setLimit] = useState(budget.monthly_limit === null ? '' : String(budget.monthly_limit));
  const [hardStop, setHardStop] = useState(budget.hard_stop);
  const [error, setError] = useState<string>();
  const save = useSaveBudget();

  const submit = (e: FormEvent, remove = false) => {
    e.preventDefault();
    const raw = limit.trim();
    const parsed = remove ? { success: true as const, data: null } : limitSchema.safeParse(raw === '' ? Number.NaN : Number(raw));
    if (!parsed.success) return setError(parsed.error.issues[0]?.message);
    setError(undefined);
    save.mutate(
      { monthly_limit: parsed.data, hard_stop: remove ? false : hardStop },
      {
        onSuccess: () => toast.success(remove ? '予算を削除しました' : '予算を保存しました'),
        onError: (err) => setError(getErrorMessage(err, '予算の保存に失敗しました')),
      },
    );
  };

  const percent = budget.monthly_limit ? Math.min(100, Math.floor((budget.spent_this_month * 100) / budget.monthly_limit)) : 0;
  return (
    <form onSubmit={(e) => submit(e)} className="space-y-4 rounded-lg border border-gray-200 bg-white p-4" noValidate>
      {budget.monthly_limit !== null ? (
        <div>
          <p className="text-sm text-gray-800">
            今月の利用額(税込) {yen(budget.spent_this_month)} / 予算 {yen(budget.monthly_limit)}({percent}%)
          </p>
          <div className="mt-1 h-2 w-full rounded bg-gray-200" role="progressbar" aria-label="予算の消化率" aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent}>
            <div className={`h-2 rounded ${percent >= 100 ? 'bg-red-600' : percent >= 80 ? 'bg-amber-500' : 'bg-blue-600'}`} style={{ width: `${percent}%` }} />
          </div>
          <ul className="mt-2 flex flex-wrap gap-2 text-xs" aria-label="アラート">
            {BUDGET_ALERT_THRESHOLDS.map((t) => (
              <li key={t} className={`rounded px-2 py-0.5 ${budget.alerts_sent.includes(t) ? 'bg-amber-100 text-amber-900' : 'bg-gray-100 text-gray-800'}`}>
                {t}%: {budget.alerts_sent.includes(t) ? '通知済' : '未通知'}
              </li>
            ))}
          </ul>
          <p className="mt-2 text-xs text-gray-700">{ALERT_RULE}</p>
        </div>
      ) : (
        <p className="text-sm text-gray-700">予算は設定されていません。設定すると、今月の利用額が予算の50%・80%・100%に達したときにメールでお知らせします。{ALERT_RULE}</p>
      )}
      <FormField id="budget-limit" label="月の予算(円、税込)" error={error} hint="1〜100,000,000円の整数">
        <input
          id="budget-limit"
          inputMode="numeric"
          className={`${inputClass} sm:max-w-xs`}
          value={limit}
          onChange={(e) => setLimit(e.target.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? 'budget-limit-error budget-limit-hint' : 'budget-limit-hint'}
        />
      </FormField>
      <label className="flex items-start gap-2 text-sm text-gray-800">
        <input type="checkbox" className="mt-1 h-4 w-4" checked={hardStop} onChange={(e) => setHardStop(e.target.checked)} />
        <span>予算に達したら公開APIの検索を停止する(停止中の検索は課金されません)</span>
      </label>
      <div className="flex flex-wrap gap-2">
        <Button type="submit" disabled={save.isPending}>
          {save.isPending ? '保存中...' : '予算を保存'}
        </Button>
        {budget.monthly_limit !== null ? (
          <Button variant="secondary" disabled={save.isPending} onClick={(e) => submit(e, true)}>
            予算を削除
          </Button>
        ) : null}
      </div>
    </form>
  );
}
