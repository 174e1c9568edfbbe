import { yearMonthOf } from '@poi/shared/billing-time';
import { senToYen } from '@poi/shared/money';
import { isAdmin } from '@poi/shared/roles';
import type { BillingAccount, BillingAccountView, BillingDetailsBody, CurrentCharges, InvoiceDetail, InvoiceList, InvoiceListQuery } from '@poi/shared/schemas/invoices';
import type { Config } from '../../config';
import type { Db } from '../../db/client';
import { inTransaction } from '../../db/transaction';
import { AppError } from '../../lib/errors';
import type { CurrentUser } from '../../plugins/auth';
import { writeAudit, type AuditActor } from '../audit/audit';
import type { PricingService } from '../pricing/pricing.service';
import { bankTransferInstructions } from '../billing-accounts/bank-transfer';
import { ensureBillingAccountForUser, findBillingAccountByUser, lockBillingAccount, type BillingAccountRow } from '../billing-accounts/billing-accounts.repository';
import * as repo from './invoices.repository';
import { computeCharges } from './charges';
import { freeSearchesOfUsers, monthUsage, userTargets, corporateMembers } from './close.repository';
import { mergeUsage, monthlyFeeSenFor } from './close.service';
import { toCreditNote, toInvoiceSummary, toPayment, type InvoiceRow } from './invoices.mapper';
import { creditNotesOf } from './invoice-adjustments.repository';
import { csvDocument } from '@poi/shared/csv';

export const INVOICE_NOT_FOUND = '請求書が見つかりません';
export const BILLING_MEMBER_FORBIDDEN = '請求情報を閲覧・変更できるのは法人アカウントのオーナーと請求担当者のみです';

export interface BillingService {
  accountView(user: CurrentUser): Promise<BillingAccountView>;
  updateDetails(user: CurrentUser, body: BillingDetailsBody, actor: AuditActor): Promise<BillingAccountView>;
  current(user: CurrentUser): Promise<CurrentCharges & { carry_over: number }>;
  listInvoices(user: CurrentUser, query: InvoiceListQuery): Promise<InvoiceList>;
  invoicesCsv(user: CurrentUser, query: Omit<InvoiceListQuery, 'limit' | 'offset'>): Promise<string>;
  invoiceDetail(user: CurrentUser, id: string): Promise<InvoiceDetail>;
}

const STATUS_LABELS: Record<InvoiceRow['status'], string> = {
  draft: '下書き',
  issued: '発行済',
  paid: '支払済',
  partially_paid: '一部入金',
  overdue: '支払期限超過',
  void: '無効',
  uncollectible: '貸倒れ',
};
const METHOD_LABELS = { card: 'クレジットカード', bank_transfer: '銀行振込' } as const;

const CSV_HEADERS = ['請求書番号', '対象年月', '発行日', '支払期限', '宛名', '小計(円)', '消費税(円)', '合計(円)', 'クレジット充当(円)', '入金済(円)', '返還(円)', '未払残高(円)', '支払方法', '状態'];

export function createBillingService(deps: { db: Db; config: Pick<Config, 'stripe' | 'bank'>; pricing: PricingService; now?: () => Date }): BillingService {
  const { db, config } = deps;
  const now = deps.now ?? (() => new Date());

  function toAccount(row: BillingAccountRow): BillingAccount {
    return {
      id: row.id,
      kind: row.kind,
      customer_number: row.customerNumber,
      addressee: row.addressee,
      honorific: row.honorific,
      postal_code: row.postalCode,
      address: row.address,
      billing_emails: row.billingEmails,
      payment_method: row.paymentMethod,
      card:
        row.cardBrand && row.cardLast4 && row.cardExpMonth && row.cardExpYear
          ? { brand: row.cardBrand, last4: row.cardLast4, exp_month: row.cardExpMonth, exp_year: row.cardExpYear }
          : null,
      credit: row.creditYen,
      bank_transfer: row.paymentMethod === 'bank_transfer' ? bankTransferInstructions(config.bank, row.customerNumber) : null,
    };
  }

  /** Corporate members with the plain member role see no invoices and change no billing details. */
  function assertMayBill(user: CurrentUser): void {
    if (user.corporateAccountId && user.corporateRole === 'member') throw new AppError('FORBIDDEN', BILLING_MEMBER_FORBIDDEN);
  }

  async function view(user: CurrentUser, account: BillingAccountRow | undefined): Promise<BillingAccountView> {
    return {
      account_type: user.accountType,
      account: account ? toAccount(account) : null,
      card_payments_available: !!config.stripe.secretKey,
      has_open_invoice: account ? await repo.hasOpenInvoice(db, account.id) : false,
    };
  }

  /** The caller's billing account; a user past the trial gets theirs on first need. */
  async function accountOf(user: CurrentUser): Promise<BillingAccountRow | undefined> {
    const found = await findBillingAccountByUser(db, user.id);
    if (found || user.accountType === 'trial') return found;
    return ensureBillingAccountForUser(db, user.id);
  }

  /** Users whose usage is billed with the caller's: the corporate account's members, or the caller alone. */
  async function billedUsers(user: CurrentUser): Promise<{ userIds: string[]; corporate: boolean }> {
    const [target] = await userTargets(db, [user.id]);
    if (target?.corporateAccountId) return { userIds: await corporateMembers(db, target.corporateAccountId), corporate: true };
    return { userIds: [user.id], corporate: false };
  }

  async function ownInvoice(user: CurrentUser, id: string): Promise<InvoiceRow> {
    const invoice = await repo.findIssuedInvoice(db, id);
    if (!invoice) throw new AppError('NOT_FOUND', INVOICE_NOT_FOUND);
    if (isAdmin({ role: user.role, account_type: user.accountType })) return invoice;
    const account = await findBillingAccountByUser(db, user.id);
    // Someone else's invoice is "not found", never "forbidden": its existence is not revealed.
    if (!account || account.id !== invoice.billingAccountId) throw new AppError('NOT_FOUND', INVOICE_NOT_FOUND);
    assertMayBill(user);
    return invoice;
  }

  return {
    async accountView(user) {
      return view(user, await accountOf(user));
    },

    async updateDetails(user, body, actor) {
      assertMayBill(user);
      return inTransaction(db, async (tx) => {
        const account = await ensureBillingAccountForUser(tx, user.id);
        const before = await lockBillingAccount(tx, account.id);
        const postalCode = body.postal_code ? body.postal_code.replace(/^(\d{3})-?(\d{4})$/, '$1-$2') : null;
        const updated = await repo.updateBillingDetails(tx, account.id, {
          addressee: body.addressee,
          honorific: body.honorific,
          postalCode,
          address: body.address || null,
          billingEmails: [...new Set(body.billing_emails.map((e) => e.trim().toLowerCase()))],
        });
        const pick = (r: BillingAccountRow) => ({ addressee: r.addressee, honorific: r.honorific, postal_code: r.postalCode, address: r.address, billing_emails: r.billingEmails });
        await writeAudit(tx, actor, { action: 'billing_account.details_updated', targetType: 'billing_account', targetId: account.id, before: pick(before!), after: pick(updated) });
        return { account_type: user.accountType, account: toAccount(updated), card_payments_available: !!config.stripe.secretKey, has_open_invoice: await repo.hasOpenInvoice(tx, account.id) };
      });
    },

    async current(user) {
      const at = now();
      const yearMonth = yearMonthOf(at);
      const { userIds, corporate } = await billedUsers(user);
      const [usage, account, freeUsed] = await Promise.all([monthUsage(db, yearMonth, userIds), findBillingAccountByUser(db, user.id), freeSearchesOfUsers(db, [user.id], yearMonth)]);
      const merged = mergeUsage(usage, userIds);
      // As the close: the monthly fee comes with usage in the month.
      const accountType = corporate ? 'corporate' : (usage.accountTypes.get(user.id) ?? user.accountType);
      const monthlyFeeSen = usage.accountTypes.size ? await monthlyFeeSenFor(deps.pricing, accountType, yearMonth) : 0;
      const carried = account ? await repo.carriedOf(db, account.id, yearMonth) : [];
      const charges = computeCharges({ ...merged, monthlyFeeSen, carried: carried.map((c) => ({ yearMonth: c.yearMonth, subtotalYen: c.subtotalYen })) });
      let limit = 0;
      try {
        limit = (await deps.pricing.versionAt(user.accountType, at)).freeSearchesPerMonth;
      } catch {
        limit = 0;
      }
      const base = charges.lines.filter((l) => l.kind === 'base_fee');
      const latestBase = merged.baseFees.length ? merged.baseFees.reduce((a, b) => (b.unitPriceSen > a.unitPriceSen ? b : a)).unitPriceSen : 0;
      return {
        year_month: yearMonth,
        datasets: charges.lines
          .filter((l) => l.kind === 'dataset')
          .map((l) => ({
            dataset_id: l.datasetId!,
            dataset_name: merged.datasets.find((d) => d.datasetId === l.datasetId)?.name ?? '',
            searches: l.quantity,
            unit_price: senToYen(l.unitPriceSen),
            amount: l.amountYen,
          })),
        base_fee: {
          searches: base.reduce((n, l) => n + l.quantity, 0),
          unit_price: senToYen(base.length === 1 ? base[0]!.unitPriceSen : latestBase),
          amount: base.reduce((n, l) => n + l.amountYen, 0),
        },
        monthly_fee: charges.lines.filter((l) => l.kind === 'monthly_fee').reduce((n, l) => n + l.amountYen, 0),
        free_searches: { limit, used: freeUsed, remaining: Math.max(0, limit - freeUsed) },
        subtotal: charges.subtotalYen,
        tax_estimate: charges.taxYen,
        total_estimate: charges.totalYen,
        carry_over: charges.lines.filter((l) => l.kind === 'carry_over').reduce((n, l) => n + l.amountYen, 0),
        as_of: at.toISOString(),
      };
    },

    async listInvoices(user, query) {
      const account = await findBillingAccountByUser(db, user.id);
      if (!account) return { invoices: [], total: 0 };
      assertMayBill(user);
      const { rows, total } = await repo.listInvoices(
        db,
        account.id,
        { issuedFrom: query.issued_from, issuedTo: query.issued_to, amountMin: query.amount_min, amountMax: query.amount_max },
        { limit: query.limit, offset: query.offset },
      );
      return { invoices: rows.map(toInvoiceSummary), total };
    },

    async invoicesCsv(user, query) {
      const account = await findBillingAccountByUser(db, user.id);
      if (account) assertMayBill(user);
      const { rows } = account
        ? await repo.listInvoices(db, account.id, { issuedFrom: query.issued_from, issuedTo: query.issued_to, amountMin: query.amount_min, amountMax: query.amount_max })
        : { rows: [] };
      return csvDocument(
        CSV_HEADERS,
        rows.map((r) => {
          const s = toInvoiceSummary(r);
          return [s.number, s.year_month, s.issue_date, s.due_date, s.addressee, s.subtotal, s.tax, s.total, s.credit_applied, s.paid, s.credited, s.remaining, METHOD_LABELS[s.payment_method], STATUS_LABELS[s.status]];
        }),
      );
    },

    async invoiceDetail(user, id) {
      const invoice = await ownInvoice(user, id);
      const [lines, paymentRows, notes] = await Promise.all([repo.invoiceLinesOf(db, invoice.id), repo.paymentsOf(db, invoice.id), creditNotesOf(db, invoice.id)]);
      const issuer = invoice.issuerSnapshot as { name?: string; registration_number?: string | null; address?: string | null };
      const recipient = invoice.recipientSnapshot as { addressee?: string; honorific?: string; customer_number?: string; postal_code?: string | null; address?: string | null };
      return {
        ...toInvoiceSummary(invoice),
        lines: lines.map((l) => ({
          kind: l.kind,
          dataset_id: l.datasetId,
          description: l.description,
          quantity: l.quantity,
          unit_price: senToYen(l.unitPriceSen),
          amount: l.amountYen,
          tax_rate_percent: l.taxRateBp / 100,
        })),
        payments: paymentRows.map(toPayment),
        issuer: { name: issuer.name ?? '', registration_number: issuer.registration_number ?? null, address: issuer.address ?? null },
        recipient: {
          addressee: recipient.addressee ?? '',
          honorific: recipient.honorific ?? '',
          customer_number: recipient.customer_number ?? '',
          postal_code: recipient.postal_code ?? null,
          address: recipient.address ?? null,
        },
        bank_transfer: invoice.paymentMethod === 'bank_transfer' ? bankTransferInstructions(config.bank, recipient.customer_number ?? '') : null,
        pay_now_url: invoice.payNowUrl,
        last_payment_error: invoice.lastPaymentError,
        // A carried-over draft's void_reason is internal ('carried_over:…'); only an admin void shows one.
        void_reason: invoice.status === 'void' ? invoice.voidReason : null,
        voided_at: invoice.voidedAt?.toISOString() ?? null,
        write_off_reason: invoice.writeOffReason,
        written_off_at: invoice.writtenOffAt?.toISOString() ?? null,
        credit_notes: notes.map(toCreditNote),
      };
    },
  };
}
