/**
 * The Japanese labels of the codes the admin screens show from audit rows and invoices: actions,
 * target types, statuses (invoice, user, corporate account, plan change) and reason codes. One
 * place, so no screen prints a raw code (`billing_month`, `partially_paid`, `declined`).
 * apps/server/src/modules/audit/audit-labels.test.ts reads the server's source and fails when an
 * action or target type it writes has no label here.
 */

export const AUDIT_ACTION_LABELS: Record<string, string> = {
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
  'corporate.cancellation_requested': '法人アカウントの解約申請',
  'pricing_version.created': '料金設定の作成',
  'pricing_version.updated': '料金設定の変更',
  'pricing_version.deleted': '料金設定の削除',
  'billing.month_closed': '月次締め',
  'invoice.issued': '請求書の発行',
  'invoice.carried_over': '少額のため翌月に繰越',
  'invoice.overdue': '支払期限超過',
  'invoice.payment_recorded': '入金の記録',
  'invoice.card_payment_failed': 'カード決済の失敗',
  'invoice.pay_session_created': 'カードでの支払い手続きの開始',
  'invoice.void': '請求書の無効化',
  'invoice.credit_note': '返還請求書(適格返還請求書)の発行',
  'invoice.write_off': '貸倒れ処理',
  'billing_account.card_saved': 'カードの登録',
  'billing_account.card_removed': 'カードの削除',
  'billing_account.card_payment_credited': 'カード決済の超過分をクレジット',
  'billing_account.details_updated': '請求先情報の変更',
  'budget.set': '予算の設定',
  'budget.remove': '予算の削除',
  'plan.cancel_scheduled': 'プラン解約の予約',
  'plan.cancel_undone': 'プラン解約予約の取り消し',
  'plan.cancel_withdrawn': 'プラン解約予約の取り消し',
  'plan.change_obsolete': 'プラン変更の予約が無効に',
  'plan.downgraded': 'プランのダウングレード',
};

export const AUDIT_TARGET_LABELS: Record<string, string> = {
  user: 'ユーザー',
  corporate_account: '法人アカウント',
  billing_account: '請求先',
  billing_month: '請求月',
  invoice: '請求書',
  credit_note: '返還請求書',
  payment_intent: 'カード決済',
  pricing_version: '料金設定',
};

/** Invoice statuses (the console's badges and lists use these too). */
export const INVOICE_STATUS_LABEL_TEXT = {
  draft: '下書き',
  issued: '発行済',
  paid: '支払済',
  partially_paid: '一部入金',
  overdue: '支払期限超過',
  void: '無効',
  uncollectible: '貸倒れ',
} as const;

/** Every status an audit row's before/after may carry: invoices, users, corporate accounts, plan changes. */
export const STATUS_LABELS: Record<string, string> = {
  ...INVOICE_STATUS_LABEL_TEXT,
  active: '有効',
  suspended: '停止中',
  pending: '審査中',
  rejected: '却下',
  scheduled: '予約中',
  withdrawn: '取り消し済',
  obsolete: '無効',
  applied: '適用済',
};

/** Reason codes the server stores instead of a sentence (a declined charge's kind). */
export const REASON_CODE_LABELS: Record<string, string> = {
  declined: 'カードが拒否されました',
  authentication_required: '本人認証(3Dセキュア)が必要です',
};

/** A code without a label is shown as a generic Japanese word, never as the code itself. */
export const auditActionLabel = (action: string): string => AUDIT_ACTION_LABELS[action] ?? 'その他の操作';
export const auditTargetLabel = (type: string): string => AUDIT_TARGET_LABELS[type] ?? '対象';
export const statusLabel = (status: string): string => STATUS_LABELS[status] ?? status;
/** A reason: a known code in Japanese; a sentence an admin typed stays as it is. */
export const reasonLabel = (reason: string): string => REASON_CODE_LABELS[reason] ?? reason;
