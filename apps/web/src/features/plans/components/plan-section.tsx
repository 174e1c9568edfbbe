import { useState } from 'react';
import { toast } from 'react-toastify';
import { dayOf, monthRange, yearMonthOf } from '@poi/shared/billing-time';
import { formatDate } from '@poi/shared/format';
import type { PlanState } from '@poi/shared/schemas/plans';
import { Button } from '../../../components/ui/button';
import { ConfirmDialog } from '../../../components/ui/confirm-dialog';
import { ErrorBlock, LoadingBlock } from '../../../components/ui/state-blocks';
import { getErrorMessage } from '../../../lib/api-client';
import { useCancelPlan, usePlanState, useRequestCorporateCancellation, useUndoCancelPlan } from '../api/plans-api';

/** 'YYYY-MM-DD' → '2026年11月30日'. */
const longDay = (day: string) => `${day.slice(0, 4)}年${Number(day.slice(5, 7))}月${Number(day.slice(8, 10))}日`;

/** The last Japan-time day of the current plan and the first of the new one, for a change effective at `effectiveAt`. */
export function cancellationDates(effectiveAt: Date): { lastDay: string; firstDay: string } {
  return { lastDay: longDay(dayOf(new Date(effectiveAt.getTime() - 1))), firstDay: longDay(dayOf(effectiveAt)) };
}

export function cancellationMessage(effectiveAt: Date): string {
  const { lastDay, firstDay } = cancellationDates(effectiveAt);
  return `${lastDay} 23:59 まで現在のプランをご利用いただけます。${firstDay.replace(/^\d+年/, '')}からトライアルになります。当月分のご利用料金は翌月1日に請求されます。提供済みの検索の返金はありません。`;
}

const CLOSING_NOTE = 'アカウントそのものの削除(退会)をご希望の場合は、お問い合わせください。請求書などの記録は法令により保存されます。';

function IndividualCancel({ state }: { state: PlanState }) {
  const cancel = useCancelPlan();
  const undo = useUndoCancelPlan();
  const [confirming, setConfirming] = useState(false);
  const scheduled = state.scheduled_change;
  if (scheduled) {
    const { lastDay, firstDay } = cancellationDates(new Date(scheduled.effective_at));
    return (
      <div className="space-y-3 rounded-lg border border-amber-200 bg-amber-50 p-4 text-sm text-gray-900">
        <p data-testid="scheduled-cancellation">
          <strong>解約を予約しています。</strong>
          {lastDay} 23:59 まで個人プランをご利用いただけます。{firstDay}からトライアルになります。当月分のご利用料金は翌月1日に請求されます。
        </p>
        <p className="text-xs text-gray-700">予約日 {formatDate(scheduled.scheduled_at)}</p>
        <Button
          variant="secondary"
          disabled={undo.isPending}
          onClick={() =>
            undo.mutate(undefined, {
              onSuccess: () => toast.success('解約の予約を取り消しました'),
              onError: (err) => toast.error(getErrorMessage(err, '解約の予約を取り消せませんでした')),
            })
          }
        >
          {undo.isPending ? '処理中...' : '解約を取り消す'}
        </Button>
      </div>
    );
  }
  const effectiveAt = monthRange(yearMonthOf(new Date())).end;
  return (
    <div className="space-y-3 rounded-lg border border-gray-200 bg-white p-4 text-sm text-gray-900">
      <p>
        現在は<strong>個人プラン</strong>です。解約すると月末までは個人プランのままご利用いただけ、翌月1日からトライアル(無料のデータセットのみ、無料枠の範囲)になります。
      </p>
      <Button variant="danger" onClick={() => setConfirming(true)}>
        月末で解約する(トライアルに戻す)
      </Button>
      {confirming ? (
        <ConfirmDialog
          title="個人プランを月末で解約しますか?"
          message={cancellationMessage(effectiveAt)}
          confirmLabel="月末で解約する"
          busy={cancel.isPending}
          onCancel={() => setConfirming(false)}
          onConfirm={() =>
            cancel.mutate(undefined, {
              onSuccess: () => {
                setConfirming(false);
                toast.success('月末での解約を予約しました');
              },
              onError: (err) => {
                setConfirming(false);
                toast.error(getErrorMessage(err, '解約を予約できませんでした'));
              },
            })
          }
        />
      ) : null}
    </div>
  );
}

function CorporateCancel({ corporate }: { corporate: NonNullable<PlanState['corporate']> }) {
  const request = useRequestCorporateCancellation();
  const [confirming, setConfirming] = useState(false);
  if (corporate.cancellation_request) {
    return (
      <p data-testid="corporate-cancellation" className="rounded-lg border border-amber-200 bg-amber-50 p-4 text-sm text-gray-900">
        <strong>解約申請中</strong>({formatDate(corporate.cancellation_request.requested_at)} 受付)。当社で確認のうえ、月末で解約の処理をいたします。当月分のご利用料金は翌月1日に請求されます。
      </p>
    );
  }
  if (!corporate.is_owner) {
    return <p className="text-sm text-gray-800">法人アカウントの解約は、法人アカウントの所有者が申請できます。</p>;
  }
  return (
    <div className="space-y-3 rounded-lg border border-gray-200 bg-white p-4 text-sm text-gray-900">
      <p>法人プランの解約は申請制です。申請後、当社で確認のうえ月末で解約の処理をいたします。</p>
      <Button variant="danger" onClick={() => setConfirming(true)}>
        解約を申請する
      </Button>
      {confirming ? (
        <ConfirmDialog
          title="法人アカウントの解約を申請しますか?"
          message="当社で確認のうえ、月末で解約の処理をいたします。解約後はメンバー全員のAPIキーが使えなくなります。当月分のご利用料金は翌月1日に請求されます。"
          confirmLabel="解約を申請する"
          busy={request.isPending}
          onCancel={() => setConfirming(false)}
          onConfirm={() =>
            request.mutate(
              {},
              {
                onSuccess: () => {
                  setConfirming(false);
                  toast.success('解約を申請しました');
                },
                onError: (err) => {
                  setConfirming(false);
                  toast.error(getErrorMessage(err, '解約を申請できませんでした'));
                },
              },
            )
          }
        />
      ) : null}
    </div>
  );
}

/** /billing's 「プランの変更・解約」: an individual's cancellation at month end (and its undo), a corporate owner's request. */
export function PlanSection() {
  const plan = usePlanState();
  if (plan.isPending) return <LoadingBlock />;
  if (plan.isError) return <ErrorBlock message={getErrorMessage(plan.error, 'プラン情報の取得に失敗しました')} onRetry={() => void plan.refetch()} />;
  const state = plan.data;
  let body;
  if (state.corporate) body = <CorporateCancel corporate={state.corporate} />;
  else if (state.account_type === 'individual') body = <IndividualCancel state={state} />;
  else if (state.account_type === 'trial') body = <p className="text-sm text-gray-800">現在はトライアルです。解約が必要な有料プランはありません。</p>;
  else body = <p className="text-sm text-gray-800">このアカウントのプラン変更はお問い合わせください。</p>;
  return (
    <div className="space-y-3">
      {body}
      <p className="text-xs text-gray-700">{CLOSING_NOTE}</p>
    </div>
  );
}
