import { useEffect } from 'react';
import { Link, useSearchParams } from 'react-router';
import { CheckCircle2 } from 'lucide-react';
import { ErrorBlock, LoadingBlock } from '../../../components/ui/state-blocks';
import { getErrorMessage } from '../../../lib/api-client';
import { usePageTitle } from '../../../lib/use-page-title';
import { authStore } from '../../../lib/auth-store';
import { getCurrentUser, useCompleteCheckout } from '../api/payments-api';

export const COMPLETE_TITLE = 'カード登録完了';
export const CHECKING_TITLE = 'カード登録の確認';
export const FAILED_TITLE = 'カード登録を完了できませんでした';

const PURPOSE_TEXT = {
  card: 'カードを登録しました。今後の請求はこのカードで決済されます。',
  upgrade_individual: '個人プランへのアップグレードが完了しました',
  corporate: '法人アカウントが有効になりました',
} as const;

/** /payment-method/complete?session_id=…: back from Stripe Checkout; safe to reload. */
export function PaymentCompletePage() {
  const [params] = useSearchParams();
  const sessionId = params.get('session_id') ?? '';
  const complete = useCompleteCheckout(sessionId);
  const purpose = complete.data?.purpose;
  useEffect(() => {
    // The account type may have changed: the sidebar badge and the guards read the stored user.
    if (purpose) void getCurrentUser().then((u) => authStore.setUser(u)).catch(() => undefined);
  }, [purpose]);

  // The heading and the document title say what happened (WCAG 2.4.2 / 2.4.6): never 「完了」 over an error.
  const failed = !sessionId || complete.isError;
  const title = failed ? FAILED_TITLE : complete.isPending ? CHECKING_TITLE : COMPLETE_TITLE;
  usePageTitle(title);

  const back = (
    <Link to="/payment-method" className="font-medium text-blue-800 underline">
      お支払い方法へ戻る
    </Link>
  );
  let body;
  if (!sessionId) body = <ErrorBlock message="セッション情報がありません。カード登録をやり直してください。" />;
  else if (complete.isPending) body = <LoadingBlock label="カード登録を確認しています..." />;
  else if (complete.isError) body = <ErrorBlock message={getErrorMessage(complete.error, 'カード登録を確認できませんでした。')} />;
  else {
    const { card, next } = complete.data;
    body = (
      <div className="space-y-4 rounded-lg border border-green-200 bg-green-50 p-6 text-gray-900">
        <p className="flex items-center gap-2 text-lg font-semibold text-green-900">
          <CheckCircle2 className="h-6 w-6" aria-hidden="true" />
          カードを登録しました
        </p>
        <p>
          {card.brand.toUpperCase()} •••• {card.last4}(有効期限 {String(card.exp_month).padStart(2, '0')}/{card.exp_year})
        </p>
        <p>{PURPOSE_TEXT[complete.data.purpose]}</p>
        <Link to={next} className="inline-block rounded-md bg-blue-700 px-4 py-2 text-sm font-medium text-white hover:bg-blue-800">
          {next === '/upgrade' ? 'アップグレードへ戻る' : '請求・お支払いへ'}
        </Link>
      </div>
    );
  }
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-bold text-gray-900">{title}</h1>
      {body}
      {failed ? back : null}
    </div>
  );
}
