import { messages } from '@poi/shared/messages';

/** The Japanese messages of card payments (shown to the user as they are). */
export const paymentMessages = {
  /** STRIPE_SECRET_KEY unset: 503 SERVICE_UNAVAILABLE on every card call. */
  cardUnavailable: messages.cardUnavailable,
  /** Stripe could not be reached or failed (connection refused, timeout, 5xx): 503. */
  stripeDown: 'カード決済サービスに接続できませんでした。しばらくしてからもう一度お試しください。',
  sessionNotFound: 'カード登録の手続きが見つかりません。もう一度カードの登録からやり直してください。',
  sessionNotComplete: 'カードの登録が完了していません。もう一度カードの登録からやり直してください。',
  alreadyUpgraded: 'すでにアップグレード済みです。カードの変更は「お支払い方法」から行えます。',
  trialUseUpgrade: 'カードの登録はアップグレードの手続きから行ってください。',
  noCorporateApplication: 'カード払いの法人申込みが見つかりません。先に法人アカウントをお申し込みください。',
  corporateApplicationClosed: 'この法人申込みは受付を終了しています。お申し込み内容をご確認ください。',
  notBillingManager: 'お支払い方法を変更できるのは法人アカウントの管理者と請求担当者のみです。',
  noCard: '登録されているカードはありません。',
  cardRemoved: 'カードを削除しました。',
  openInvoice: '未払いの請求書があるため、カードを削除できません。お支払いが完了してから削除してください。',
  webhookNotConfigured: 'Stripe の Webhook が設定されていません(STRIPE_WEBHOOK_SECRET)。',
  badSignature: 'Stripe の署名を検証できませんでした。',
  /** A correctly signed body that is not a Stripe event (not an object, no id or type, data.object not an object): 400. */
  notAnEvent: 'Stripe のイベントとして読み取れない内容です。',
  // Stored on the invoice (last_payment_error) and shown on /billing.
  declined: 'カードが拒否されました。カード会社にお問い合わせいただくか、別のカードをご登録ください。',
  expired: 'カードの有効期限が切れています。新しいカードをご登録ください。',
  insufficientFunds: 'カードの利用限度額を超えているため決済できませんでした。',
  authenticationRequired: 'カード会社による本人認証(3Dセキュア)が必要です。この請求書の「今すぐ支払う」からお支払いください。',
  noCardForCharge: 'カードが登録されていないため決済できませんでした。お支払い方法からカードをご登録ください。',
  // Stored on every attempt, the last included: it promises no retry (the invoice's schedule and mails say what follows).
  chargeFailed: 'カード決済に失敗しました。この請求書の「今すぐ支払う」からお支払いいただくか、別のカードをご登録ください。',
  // Paying an invoice on demand (POST /billing/invoices/:id/pay); the first two as GET /billing/invoices/:id answers.
  invoiceNotFound: '請求書が見つかりません',
  billingMemberForbidden: '請求情報を閲覧・変更できるのは法人アカウントのオーナーと請求担当者のみです',
  nothingOwed: 'この請求書にお支払いいただく残高はありません。',
  payByTransfer: 'この請求書は銀行振込でお支払いください。振込先は請求書に記載しています。',
  belowCardMinimum: '残高が50円未満のため、カードではお支払いいただけません。お手数ですがお問い合わせください。',
} as const;

/** The Japanese reason of a declined charge, from Stripe's error code / decline code. */
export function declineMessage(code: string | undefined, declineCode?: string | undefined): string {
  if (code === 'authentication_required' || declineCode === 'authentication_required') return paymentMessages.authenticationRequired;
  if (code === 'expired_card' || declineCode === 'expired_card') return paymentMessages.expired;
  if (declineCode === 'insufficient_funds') return paymentMessages.insufficientFunds;
  return paymentMessages.declined;
}
