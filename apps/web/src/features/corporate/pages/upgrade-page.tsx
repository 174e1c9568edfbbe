import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { toast } from 'react-toastify';
import { formatDate, formatNumber, formatYen, formatYenAmount } from '@poi/shared/format';
import { lineAmountYen, taxInclusiveYen } from '@poi/shared/invoice-math';
import { toSen } from '@poi/shared/money';
import type { CorporateApplication, Plan, UpgradeView } from '@poi/shared/schemas/corporate';
import { Button } from '../../../components/ui/button';
import { PageHeader } from '../../../components/ui/page-header';
import { isConsumerAccount, PER_SEARCH_TAX_NOTE, UnitPriceWithTax, YenWithTax } from '../../../components/ui/tax-inclusive-price';
import { ErrorBlock, LoadingBlock } from '../../../components/ui/state-blocks';
import { getErrorMessage } from '../../../lib/api-client';
import { startCheckout, useApplyCorporate, useUpgradeView } from '../api/corporate-api';
import { CorporateApplicationForm } from '../components/corporate-application-form';
import { useUpgradeSteps } from './use-upgrade-steps';

const PLAN_NAMES: Record<Plan['account_type'], string> = { trial: 'トライアル', individual: '個人', corporate: '法人' };

/** A step's heading takes the focus, so keyboard and screen-reader users land on the new step. */
function StepHeading({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <h2 ref={ref} tabIndex={-1} className="text-lg font-semibold text-gray-900 focus:outline-none">
      {children}
    </h2>
  );
}

function PlanCards({ view }: { view: UpgradeView }) {
  return (
    <ul className="grid gap-4 md:grid-cols-3">
      {view.plans.map((p) => {
        const current = p.account_type === view.account_type;
        // 総額表示: the consumer plans (trial, individual) lead with 税込; the corporate plan with 税抜.
        const consumer = isConsumerAccount(p.account_type);
        return (
          <li key={p.account_type} className={`rounded-lg border bg-white p-4 ${current ? 'border-blue-600 ring-1 ring-blue-600' : 'border-gray-200'}`}>
            <h3 className="flex items-center justify-between text-base font-semibold text-gray-900">
              {PLAN_NAMES[p.account_type]}プラン
              {current ? <span className="rounded bg-blue-100 px-2 py-0.5 text-xs font-medium text-blue-900">現在のプラン</span> : null}
            </h3>
            <dl className="mt-3 grid grid-cols-[1fr_auto] gap-y-1 text-sm">
              <dt className="text-gray-700">基本料金(1検索あたり)</dt>
              <dd className="text-right tabular-nums">{consumer ? <UnitPriceWithTax price={p.base_fee} /> : `${formatYen(p.base_fee, 2)}(税抜)`}</dd>
              <dt className="text-gray-700">月間無料検索数</dt>
              <dd className="text-right tabular-nums">{formatNumber(p.free_searches_per_month)}回</dd>
              <dt className="text-gray-700">月額料金</dt>
              <dd className="text-right tabular-nums">{consumer ? <YenWithTax yen={p.monthly_fee} /> : `${formatYen(p.monthly_fee, 0)}(税抜)`}</dd>
              <dt className="text-gray-700">レート制限</dt>
              <dd className="text-right tabular-nums">{formatNumber(p.rate_limit_per_minute)}回/分</dd>
              <dt className="text-gray-700">APIキー上限</dt>
              <dd className="text-right tabular-nums">{formatNumber(p.max_api_keys)}個</dd>
            </dl>
            {p.account_type === 'trial' ? <p className="mt-2 text-xs text-gray-700">無料のデータセットのみ、無料枠の範囲でご利用いただけます。</p> : null}
            {consumer ? (
              <p className="mt-2 text-xs text-gray-700">
                価格は税込(消費税10%)で、括弧内が税抜です。データセットの検索料金は各データセットの価格によります。{PER_SEARCH_TAX_NOTE}
              </p>
            ) : (
              <p className="mt-2 text-xs text-gray-700">価格は税抜です。データセットの検索料金は各データセットの価格によります(税抜、請求時に消費税10%)。</p>
            )}
          </li>
        );
      })}
    </ul>
  );
}

function ApplicationStatus({ app }: { app: CorporateApplication }) {
  const label =
    app.status === 'pending' ? (app.waiting_for === 'card' ? 'カード登録待ち' : '審査中') : app.status === 'active' ? '承認済' : app.status === 'rejected' ? '却下' : '停止中';
  const [starting, setStarting] = useState(false);
  return (
    <section aria-labelledby="application-heading" className="rounded-lg border border-amber-200 bg-amber-50 p-4 text-sm text-gray-900">
      <h2 id="application-heading" className="font-semibold">
        法人プランのお申し込み: <span data-testid="application-status">{label}</span>
      </h2>
      <p className="mt-1">
        {app.company_name}(お申し込み日 {formatDate(app.created_at)})
      </p>
      {app.status === 'pending' && app.waiting_for === 'approval' ? <p className="mt-1">お申し込みを受け付けました。審査が完了しましたらメールでお知らせします。</p> : null}
      {app.status === 'rejected' && app.status_reason ? <p className="mt-1">理由: {app.status_reason}</p> : null}
      {app.status === 'pending' && app.waiting_for === 'card' ? (
        <Button
          className="mt-2"
          disabled={starting}
          onClick={() => {
            setStarting(true);
            startCheckout('corporate').catch((err: unknown) => {
              setStarting(false);
              toast.error(getErrorMessage(err, 'カード登録を開始できませんでした'));
            });
          }}
        >
          カード登録を再開する
        </Button>
      ) : null}
    </section>
  );
}

function Agreement({ checked, onChange }: { checked: boolean; onChange: (v: boolean) => void }) {
  return (
    <label className="flex items-start gap-2 text-sm text-gray-900">
      <input type="checkbox" className="mt-1 h-4 w-4" checked={checked} onChange={(e) => onChange(e.target.checked)} />
      <span>上記の内容に同意します</span>
    </label>
  );
}

const Term = ({ label, children }: { label: string; children: ReactNode }) => (
  <>
    <dt className="font-medium text-gray-800">{label}</dt>
    <dd className="text-gray-900">{children}</dd>
  </>
);

/**
 * The terms an application is confirmed with: its own, then its cancellation rule, and the link to
 * the commerce disclosure, in a new tab so the confirmation step is kept.
 */
const Terms = ({ children, cancellation }: { children: ReactNode; cancellation?: ReactNode }) => (
  <>
    <dl className="grid grid-cols-1 gap-x-4 gap-y-2 text-sm sm:grid-cols-[10rem_1fr]">
      {children}
      <Term label="解約・変更">{cancellation ?? 'ダウングレードは月末に反映されます。提供済みの検索の返金はありません。'}</Term>
    </dl>
    <p className="text-sm">
      <Link to="/commerce" target="_blank" rel="noopener" className="font-medium text-blue-800 underline">
        特定商取引法に基づく表記<span className="text-xs font-normal">（新しいタブで開きます）</span>
      </Link>
    </p>
  </>
);

/** 「例」 of the individual confirmation: searches beyond the free ones in a month, as an invoice totals them. */
const EXAMPLE_SEARCHES = 10_000;

/** /upgrade: plans from the current pricing, the final confirmation (特商法 12条の6), card or application. */
export function UpgradePage() {
  const view = useUpgradeView();
  const steps = useUpgradeSteps();
  const { step, agreed, starting, go, application } = steps;
  const apply = useApplyCorporate();
  const checkout = (purpose: 'upgrade_individual' | 'corporate') => {
    steps.checkoutStarted();
    return startCheckout(purpose).catch((err: unknown) => {
      steps.checkoutFailed();
      toast.error(getErrorMessage(err, 'カード登録を開始できませんでした'));
    });
  };

  if (view.isPending) return <LoadingBlock />;
  if (view.isError) return <ErrorBlock message={getErrorMessage(view.error, 'プラン情報の取得に失敗しました')} onRetry={() => void view.refetch()} />;
  const v = view.data;
  const plan = (type: Plan['account_type']) => v.plans.find((p) => p.account_type === type);
  const pending = v.application?.status === 'pending';
  const canIndividual = v.account_type === 'trial';
  const canCorporate = (v.account_type === 'trial' || v.account_type === 'individual') && !pending;

  let content: ReactNode;
  if (step === 'individual' && canIndividual) {
    const p = plan('individual');
    const baseFee = p?.base_fee ?? 0;
    const exampleYen = lineAmountYen(EXAMPLE_SEARCHES, toSen(baseFee));
    content = (
      <section className="space-y-4 rounded-lg border border-gray-200 bg-white p-4">
        <StepHeading>お申し込み内容の確認</StepHeading>
        <Terms
          cancellation={
            <>
              <Link to="/billing" className="font-medium text-blue-800 underline">請求・お支払い</Link>の「プランの変更・解約」からいつでも解約できます。解約は月末に反映され、翌月1日
              0:00(日本時間)からトライアルになります。当月分のご利用料金は翌月1日に請求書を発行して請求します。提供済みの検索の返金はありません。
            </>
          }
        >
          <Term label="お申し込みプラン">個人プラン</Term>
          <Term label="料金(税込)">
            <ul className="list-disc space-y-1 pl-5" data-testid="individual-prices">
              <li>
                基本料金 1検索あたり <UnitPriceWithTax price={baseFee} className="font-semibold" />(月{formatNumber(p?.free_searches_per_month ?? 0)}回まで無料)
              </li>
              <li>
                月額料金 <YenWithTax yen={p?.monthly_fee ?? 0} className="font-semibold" />
              </li>
              <li>有料データセットは各データセットの価格(データセット一覧に税込で表示)</li>
              <li>
                例: 無料枠を超えた検索が月に{formatNumber(EXAMPLE_SEARCHES)}回の場合、基本料金は税抜 {formatYenAmount(exampleYen)}、税込 {formatYenAmount(taxInclusiveYen(exampleYen))}
              </li>
            </ul>
            <p className="mt-1 text-xs text-gray-700">{PER_SEARCH_TAX_NOTE}</p>
          </Term>
          <Term label="お支払い方法">クレジットカード</Term>
          <Term label="お支払い時期">毎月1日に前月分の請求書を発行し、登録カードで決済します。</Term>
          <Term label="サービス開始時期">カード登録の完了後、直ちに個人プランが有効になります。</Term>
        </Terms>
        {!v.card_payments_available ? <p className="rounded-md bg-amber-50 p-3 text-sm text-amber-950">現在カード決済をご利用いただけないため、お申し込みできません。</p> : null}
        <Agreement checked={agreed} onChange={steps.agree} />
        <div className="flex flex-wrap gap-2">
          <Button variant="secondary" onClick={() => go('plans')}>
            戻る
          </Button>
          <Button disabled={!agreed || starting || !v.card_payments_available} onClick={() => void checkout('upgrade_individual')}>
            {starting ? '移動中...' : 'カードを登録して申し込む'}
          </Button>
        </div>
      </section>
    );
  } else if (step === 'corporate-form' && canCorporate) {
    content = (
      <CorporateApplicationForm
        values={steps.values}
        cardPaymentsAvailable={v.card_payments_available}
        heading={<StepHeading>法人プランのお申し込み</StepHeading>}
        onNext={steps.confirm}
        onBack={(values) => go('plans', values)}
      />
    );
  } else if (step === 'corporate-confirm' && application && canCorporate) {
    const body = application;
    const submit = () =>
      apply.mutate(body, {
        onSuccess: async (app) => {
          if (app.payment_method === 'card') await checkout('corporate');
          else {
            toast.success('お申し込みを受け付けました');
            go('plans');
          }
        },
        onError: (err) => steps.refused(getErrorMessage(err, 'お申し込みに失敗しました')),
      });
    const p = plan('corporate');
    content = (
      <section className="space-y-4 rounded-lg border border-gray-200 bg-white p-4">
        <StepHeading>お申し込み内容の確認</StepHeading>
        <Terms>
          <Term label="会社名">
            {body.company_name}({body.company_name_kana})
          </Term>
          {body.department ? <Term label="部署名">{body.department}</Term> : null}
          <Term label="住所">
            〒{body.postal_code} {body.address}
          </Term>
          <Term label="電話番号">{body.phone}</Term>
          <Term label="請求担当者">
            {body.billing_contact_name}({body.billing_emails.join(', ')})
          </Term>
          <Term label="料金">
            基本料金 1検索あたり {formatYen(p?.base_fee ?? 0, 2)}(月{formatNumber(p?.free_searches_per_month ?? 0)}回まで無料)、月額料金 {formatYen(p?.monthly_fee ?? 0, 0)}(税抜、請求時に消費税10%)
          </Term>
          <Term label="お支払い方法">{body.payment_method === 'card' ? 'クレジットカード' : '請求書払い(銀行振込)'}</Term>
          <Term label="お支払い時期">
            {body.payment_method === 'card' ? '毎月1日に前月分の請求書を発行し、登録カードで決済します。' : '月末締め翌月末払い。振込手数料はお客様のご負担です。'}
          </Term>
          <Term label="サービス開始時期">{body.payment_method === 'card' ? 'カード登録の完了後、直ちに有効になります。' : '当社の審査・承認後に有効になります(メールでお知らせします)。'}</Term>
        </Terms>
        <Agreement checked={agreed} onChange={steps.agree} />
        {steps.error ? (
          <p role="alert" className="text-sm text-red-700">
            {steps.error}
          </p>
        ) : null}
        <div className="flex flex-wrap gap-2">
          <Button variant="secondary" onClick={() => go('corporate-form')}>
            戻る
          </Button>
          <Button disabled={!agreed || apply.isPending || starting} onClick={submit}>
            {apply.isPending || starting ? '送信中...' : '申し込む'}
          </Button>
        </div>
      </section>
    );
  } else {
    content = (
      <div className="space-y-4">
        <h2 className="text-lg font-semibold text-gray-900">プラン比較</h2>
        <PlanCards view={v} />
        <div className="flex flex-wrap gap-2">
          {canIndividual ? <Button onClick={() => go('individual')}>個人プランに申し込む</Button> : null}
          {canCorporate ? (
            <Button variant={canIndividual ? 'secondary' : 'primary'} onClick={() => go('corporate-form')}>
              法人プランを申し込む
            </Button>
          ) : null}
        </div>
      </div>
    );
  }

  return (
    <div className="space-y-6">
      <PageHeader
        title="アカウントアップグレード"
        description={`現在のプラン: ${PLAN_NAMES[v.account_type as Plan['account_type']] ?? v.account_type}。料金は現在の料金設定によります。`}
      />
      {v.application ? <ApplicationStatus app={v.application} /> : null}
      {content}
    </div>
  );
}
