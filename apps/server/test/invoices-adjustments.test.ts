import { createHash, randomInt, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayOf } from '@poi/shared/billing-time';
import { checkDigit } from '../src/modules/billing-accounts/customer-number';
import { createTestContext, type Actor, type TestContext } from './helpers';

/*
 * Void, credit notes (適格返還請求書) and write-off (docs/billing.md "Void, credit notes and
 * write-off") through their admin routes: the rules, the money they move, the audit rows, the
 * documents (PDF text read back with pdfjs-dist) and the database's refusals.
 */

let ctx: TestContext;
let admin: Actor;

const REGISTRATION = 'T1234567890123';
const ISSUER = { name: 'POI Cloud株式会社', address: '東京都千代田区丸の内1-1-1', registration_number: REGISTRATION };

beforeAll(async () => {
  ctx = await createTestContext({ LOG_LEVEL: 'warn', BILLING_JOBS: 'off', ISSUER_NAME: 'POI Cloud株式会社', ISSUER_REGISTRATION_NUMBER: REGISTRATION });
  admin = await ctx.admin();
});

afterAll(async () => {
  await ctx?.close();
});

interface Account {
  id: string;
  user: Actor;
  addressee: string;
}

async function account(method: 'card' | 'bank_transfer' = 'bank_transfer', creditYen = 0): Promise<Account> {
  const user = await ctx.newUser('trial', 'adj');
  const body = String(randomInt(100000, 1000000));
  const addressee = `返還 太郎${randomInt(1000)}`;
  const [row] = await ctx.query<{ id: string }>(
    `INSERT INTO billing_accounts (kind, user_id, customer_number, addressee, honorific, payment_method, credit_yen)
     VALUES ('individual', $1, $2, $3, '様', $4, $5) RETURNING id`,
    [user.id, `${body}${checkDigit(body)}`, addressee, method, creditYen],
  );
  return { id: row!.id, user, addressee };
}

let seq = 0;

interface Invoice {
  id: string;
  number: string;
  totalYen: number;
  taxYen: number;
  subtotalYen: number;
}

/** An issued invoice as the close writes it: a draft and its line, then number and status in one update. */
async function issueInvoice(
  acc: Account,
  o: { subtotalYen?: number; creditAppliedYen?: number; method?: 'card' | 'bank_transfer'; status?: string; issuer?: Record<string, unknown> } = {},
): Promise<Invoice> {
  const subtotalYen = o.subtotalYen ?? 10_000;
  const taxYen = Math.floor((subtotalYen * 10) / 100);
  const totalYen = subtotalYen + taxYen;
  const n = ++seq;
  const yearMonth = `${2000 + Math.floor(n / 12)}-${String(1 + (n % 12)).padStart(2, '0')}`;
  const recipient = { kind: 'individual', addressee: acc.addressee, honorific: '様', customer_number: '1234567' };
  const [inv] = await ctx.query<{ id: string }>(
    `INSERT INTO invoices (billing_account_id, year_month, status, period_start, period_end, subtotal_yen, tax_yen, total_yen, credit_applied_yen, payment_method, issuer_snapshot, recipient_snapshot)
     VALUES ($1, $2, 'draft', $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
    [acc.id, yearMonth, `${yearMonth}-01`, `${yearMonth}-28`, subtotalYen, taxYen, totalYen, o.creditAppliedYen ?? 0, o.method ?? 'bank_transfer', JSON.stringify(o.issuer ?? ISSUER), JSON.stringify(recipient)],
  );
  await ctx.query(`INSERT INTO invoice_lines (invoice_id, position, kind, description, quantity, unit_price_sen, amount_yen) VALUES ($1, 1, 'monthly_fee', '月額料金', 1, $2, $3)`, [inv!.id, subtotalYen * 100, subtotalYen]);
  const number = `POI-${yearMonth.replace('-', '')}-${String(900000 + n).padStart(6, '0')}`;
  await ctx.query(`UPDATE invoices SET number = $1, status = $2, issue_date = $3, due_date = $4, issued_at = now(), next_retry_at = now() WHERE id = $5`, [
    number,
    o.status ?? 'issued',
    `${yearMonth}-28`,
    `${yearMonth}-28`,
    inv!.id,
  ]);
  return { id: inv!.id, number, totalYen, taxYen, subtotalYen };
}

const invoiceRow = async (id: string) => (await ctx.query<Record<string, unknown>>(`SELECT * FROM invoices WHERE id = $1`, [id]))[0]!;
const creditOf = async (acc: Account) => Number((await ctx.query<{ c: string }>(`SELECT credit_yen AS c FROM billing_accounts WHERE id = $1`, [acc.id]))[0]!.c);
const auditOf = (id: string, action: string) => ctx.query<{ before: Record<string, unknown>; after: Record<string, unknown>; actor_id: string; ip: string | null; request_id: string | null }>(`SELECT * FROM audit_logs WHERE target_id = $1 AND action = $2`, [id, action]);

const voidIt = (id: string, reason = '請求内容の誤り', who: Actor = admin) => ctx.api('POST', `/admin/invoices/${id}/void`, who, { reason });
const credit = (id: string, amount: unknown, reason = '障害による返金', who: Actor = admin) => ctx.api('POST', `/admin/invoices/${id}/credit-notes`, who, { amount_yen: amount, reason });
const writeOff = (id: string, reason = '回収の見込みなし', who: Actor = admin) => ctx.api('POST', `/admin/invoices/${id}/write-off`, who, { reason });

async function pdfText(bytes: Buffer): Promise<string> {
  const doc = await getDocument({ data: new Uint8Array(bytes), verbosity: 0 }).promise;
  const pages: string[] = [];
  for (let i = 1; i <= doc.numPages; i++) {
    const content = await (await doc.getPage(i)).getTextContent();
    pages.push(content.items.map((item) => ('str' in item ? item.str : '')).join(''));
  }
  await doc.destroy();
  return pages.join('\n').replace(/[\s\u3000]+/g, '');
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const FROZEN = ['number', 'billing_account_id', 'year_month', 'period_start', 'period_end', 'issue_date', 'due_date', 'payment_method', 'subtotal_yen', 'tax_yen', 'total_yen', 'credit_applied_yen', 'issuer_snapshot', 'recipient_snapshot', 'pdf_sha256'];
const frozen = (row: Record<string, unknown>) => Object.fromEntries(FROZEN.map((k) => [k, row[k]]));

describe('void', () => {
  it('voids an unpaid invoice once: credit applied goes back to the account, the document stays, its PDF says 無効', async () => {
    const acc = await account('card', 0);
    const inv = await issueInvoice(acc, { creditAppliedYen: 3_000, method: 'card' });
    const original = await ctx.api('GET', `/billing/invoices/${inv.id}/pdf`, acc.user);
    expect(original.statusCode).toBe(200);
    const before = await invoiceRow(inv.id);

    const res = await voidIt(inv.id, '宛名の誤りのため再発行');
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ invoice: { status: 'void', remaining: 0 }, credit_note: null, credit_to_account: 3_000 });
    expect(await creditOf(acc)).toBe(3_000);
    const after = await invoiceRow(inv.id);
    expect(frozen(after)).toEqual(frozen(before));
    expect(after.status).toBe('void');
    expect(after.next_retry_at).toBeNull();
    expect(after.void_reason).toBe('宛名の誤りのため再発行');

    const audit = await auditOf(inv.id, 'invoice.void');
    expect(audit).toHaveLength(1);
    expect(audit[0]!.actor_id).toBe(admin.id);
    expect(audit[0]!.request_id).toBeTruthy();
    expect(audit[0]!.before).toMatchObject({ status: 'issued', credit_applied_yen: 3_000 });
    expect(audit[0]!.after).toMatchObject({ status: 'void', void_reason: '宛名の誤りのため再発行', credit_returned_yen: 3_000 });

    const again = await voidIt(inv.id);
    expect(again.statusCode).toBe(409);
    expect(again.json().error.message).toBe('この請求書はすでに無効です');
    expect(await creditOf(acc)).toBe(3_000);
    expect(await auditOf(inv.id, 'invoice.void')).toHaveLength(1);

    const served = await ctx.api('GET', `/billing/invoices/${inv.id}/pdf`, acc.user);
    const text = await pdfText(served.rawPayload);
    expect(text).toContain('無効');
    expect(text).toContain(`無効日${dayOf(new Date()).replace(/^(\d{4})-0?(\d+)-0?(\d+)$/, '$1年$2月$3日')}`);
    expect(text).toContain('宛名の誤りのため再発行');
    expect(text).toContain(inv.number);
    // The issued original is still the stored hash; the stamped copy is a different rendering.
    expect(sha256(original.rawPayload)).toBe(after.pdf_sha256);
    expect(sha256(served.rawPayload)).not.toBe(after.pdf_sha256);

    const detail = (await ctx.api('GET', `/billing/invoices/${inv.id}`, acc.user)).json().data;
    expect(detail).toMatchObject({ status: 'void', void_reason: '宛名の誤りのため再発行', credited: 0, credit_notes: [] });
    expect(detail.voided_at).toBeTruthy();
  });

  it('refuses an invoice with any payment, a paid one and one written off', async () => {
    const acc = await account();
    const partial = await issueInvoice(acc);
    const paid = await ctx.api('POST', `/admin/transfers/${partial.id}/confirm`, admin, { received_on: dayOf(new Date()), received_amount: 5_000, payer_name: 'ヘンカン タロウ' });
    expect(paid.statusCode).toBe(200);
    expect(paid.json().data.invoice.status).toBe('partially_paid');
    const res = await voidIt(partial.id);
    expect(res.statusCode).toBe(409);
    expect(res.json().error.message).toBe('入金のある請求書は無効にできません。返還請求書を発行してください');

    const settled = await issueInvoice(acc, { status: 'paid' });
    expect((await voidIt(settled.id)).statusCode).toBe(409);
    const off = await issueInvoice(acc, { status: 'overdue' });
    expect((await writeOff(off.id)).statusCode).toBe(200);
    expect((await voidIt(off.id)).json().error.message).toBe('貸倒れ処理済みの請求書は無効にできません');
    expect(await auditOf(partial.id, 'invoice.void')).toHaveLength(0);
  });
});

describe('credit notes', () => {
  it('issues a 適格返還請求書: owed first, the excess as account credit, its PDF with every required item', async () => {
    const acc = await account();
    const inv = await issueInvoice(acc, { subtotalYen: 20_000 });
    expect((await ctx.api('POST', `/admin/transfers/${inv.id}/confirm`, admin, { received_on: dayOf(new Date()), received_amount: 15_000, payer_name: 'ヘンカン' })).statusCode).toBe(200);

    const res = await credit(inv.id, 11_000, 'サービス停止(11月3日)分の返金');
    expect(res.statusCode).toBe(200);
    const { invoice, credit_note: note, credit_to_account: toAccount } = res.json().data;
    // Owed 22,000 − 15,000 = 7,000: 7,000 reduces it, 4,000 becomes credit; money was received → paid.
    expect(note).toMatchObject({ amount: 11_000, subtotal: 10_000, tax: 1_000, tax_rate_percent: 10, applied_to_invoice: 7_000, credited_to_account: 4_000 });
    expect(note.number).toMatch(/^CN-\d{6}-\d{6}$/);
    expect(toAccount).toBe(4_000);
    expect(invoice).toMatchObject({ status: 'paid', credited: 11_000, remaining: 0, paid: 15_000 });
    expect(await creditOf(acc)).toBe(4_000);
    const audit = await auditOf(inv.id, 'invoice.credit_note');
    expect(audit).toHaveLength(1);
    expect(audit[0]!.before).toMatchObject({ status: 'partially_paid', credited_yen: 0, remaining_yen: 7_000 });
    expect(audit[0]!.after).toMatchObject({ status: 'paid', credited_yen: 11_000, credit_note_number: note.number, credited_to_account_yen: 4_000 });

    const detail = (await ctx.api('GET', `/billing/invoices/${inv.id}`, acc.user)).json().data;
    expect(detail.credit_notes).toEqual([note]);
    // The admin's user detail lists the invoice with what was returned.
    const adminDetail = (await ctx.api('GET', `/admin/users/${acc.user.id}`, admin)).json().data;
    expect(adminDetail.invoices.find((i: { id: string }) => i.id === inv.id)).toMatchObject({ total: 22_000, credited: 11_000 });
    // The month's revenue figures show what was returned; billed stays the invoice's own subtotal.
    const yearMonth = String((await invoiceRow(inv.id)).year_month);
    const figures = (await ctx.api('GET', `/admin/platform/revenue?year_month=${yearMonth}`, admin)).json().data.figures;
    expect(figures).toMatchObject({ billed: 20_000, tax: 2_000, credited: 11_000, outstanding: 0 });
    // The CSV has the credited amount between paid and remaining.
    expect((await ctx.api('GET', '/billing/invoices.csv', acc.user)).body).toContain(`${inv.number},`);
    expect((await ctx.api('GET', '/billing/invoices.csv', acc.user)).body).toContain(',20000,2000,22000,0,15000,11000,0,銀行振込,支払済');
    const pdf = await ctx.api('GET', `/billing/credit-notes/${note.id}/pdf`, acc.user);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    const text = await pdfText(pdf.rawPayload);
    const issued = note.issue_date.replace(/^(\d{4})-0?(\d+)-0?(\d+)$/, '$1年$2月$3日');
    for (const part of ['適格返還請求書', 'POICloud株式会社', `登録番号${REGISTRATION}`, `発行日${issued}`, inv.number, '10%対象返還額（税抜）¥10,000', '消費税（10%）¥1,000', '返還額合計（税込）¥11,000', `${acc.addressee.replace(/\s/g, '')}様`, 'サービス停止(11月3日)分の返金']) {
      expect(text).toContain(part);
    }
    // The same bytes on every render; the hash is kept once.
    const again = await ctx.api('GET', `/billing/credit-notes/${note.id}/pdf`, acc.user);
    expect(sha256(again.rawPayload)).toBe(sha256(pdf.rawPayload));
    const [stored] = await ctx.query<{ pdf_sha256: string }>(`SELECT pdf_sha256 FROM credit_notes WHERE id = $1`, [note.id]);
    expect(stored!.pdf_sha256).toBe(sha256(pdf.rawPayload));

    // Someone else gets "not found"; without a registration number the title is 返還請求書.
    expect((await ctx.api('GET', `/billing/credit-notes/${note.id}/pdf`, (await account()).user)).statusCode).toBe(404);
  });

  it('is a plain 返還請求書 when the invoice’s issuer had no registration number', async () => {
    const acc = await account();
    const inv = await issueInvoice(acc, { issuer: { name: 'POI Cloud株式会社', registration_number: null } });
    const note = (await credit(inv.id, 110)).json().data.credit_note;
    expect(note).toMatchObject({ subtotal: 100, tax: 10 });
    const text = await pdfText((await ctx.api('GET', `/billing/credit-notes/${note.id}/pdf`, admin)).rawPayload);
    expect(text).toContain('返還請求書');
    expect(text).not.toContain('適格返還請求書');
    expect(text).not.toContain('登録番号');
  });

  it('fully credited with nothing received: nothing owed, status kept, card retries stop', async () => {
    const acc = await account('card');
    const inv = await issueInvoice(acc, { subtotalYen: 1_000, method: 'card' });
    const res = await credit(inv.id, 1_100);
    expect(res.json().data.invoice).toMatchObject({ status: 'issued', remaining: 0, credited: 1_100 });
    expect(res.json().data.credit_note).toMatchObject({ subtotal: 1_000, tax: 100, applied_to_invoice: 1_100, credited_to_account: 0 });
    expect((await invoiceRow(inv.id)).next_retry_at).toBeNull();
    const more = await credit(inv.id, 1);
    expect(more.statusCode).toBe(409);
    expect(more.json().error.message).toBe('この請求書はすでに全額が返還済みです');
  });

  it('never takes an invoice below zero over any sequence of credit notes and payments (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3_000 }),
        fc.array(fc.record({ kind: fc.constantFrom('credit', 'pay'), amount: fc.integer({ min: 1, max: 4_000 }) }), { minLength: 1, maxLength: 6 }),
        async (subtotalYen, ops) => {
          const acc = await account();
          const inv = await issueInvoice(acc, { subtotalYen });
          let paid = 0;
          let credited = 0;
          let accountCredit = 0;
          let settled = false;
          for (const op of ops) {
            const owed = Math.max(0, inv.totalYen - paid - credited);
            if (op.kind === 'credit') {
              const res = await credit(inv.id, op.amount);
              if (op.amount > inv.totalYen - credited) {
                expect(res.statusCode).toBe(409);
                continue;
              }
              expect(res.statusCode).toBe(200);
              const applied = Math.min(op.amount, owed);
              expect(res.json().data.credit_note).toMatchObject({ applied_to_invoice: applied, credited_to_account: op.amount - applied });
              const note = res.json().data.credit_note;
              expect(note.subtotal + note.tax).toBe(op.amount);
              credited += op.amount;
              accountCredit += op.amount - applied;
            } else {
              const res = await ctx.api('POST', `/admin/transfers/${inv.id}/confirm`, admin, { received_on: dayOf(new Date()), received_amount: op.amount, payer_name: 'ヘンカン' });
              if (settled || owed === 0) {
                expect(res.statusCode).toBe(409);
                continue;
              }
              expect(res.statusCode).toBe(200);
              const applied = Math.min(op.amount, owed);
              paid += applied;
              accountCredit += op.amount - applied;
              settled = paid + credited >= inv.totalYen;
            }
            const row = await invoiceRow(inv.id);
            const [sum] = await ctx.query<{ s: string; t: string }>(`SELECT coalesce(sum(amount_yen), 0) AS s, coalesce(sum(tax_yen), 0) AS t FROM credit_notes WHERE invoice_id = $1`, [inv.id]);
            expect(Number(sum!.s)).toBe(credited);
            expect(Number(sum!.s)).toBeLessThanOrEqual(inv.totalYen);
            expect(Number(sum!.t)).toBeLessThanOrEqual(inv.taxYen);
            expect(Number(row.credited_yen)).toBe(credited);
            expect(Number(row.paid_yen)).toBe(paid);
            const remaining = (await ctx.api('GET', `/billing/invoices/${inv.id}`, acc.user)).json().data.remaining;
            expect(remaining).toBe(Math.max(0, inv.totalYen - paid - credited));
            expect(Number.isInteger(remaining) && remaining >= 0).toBe(true);
            expect(await creditOf(acc)).toBe(accountCredit);
          }
          if (credited === inv.totalYen) {
            const [sum] = await ctx.query<{ t: string }>(`SELECT sum(tax_yen) AS t FROM credit_notes WHERE invoice_id = $1`, [inv.id]);
            expect(Number(sum!.t)).toBe(inv.taxYen);
          }
        },
      ),
      { numRuns: 12, seed: 20261126 },
    );
  }, 120_000);

  it('two concurrent credit notes that together exceed the total: exactly one succeeds', async () => {
    const acc = await account();
    const inv = await issueInvoice(acc, { subtotalYen: 1_000 });
    const results = await Promise.all([credit(inv.id, 700), credit(inv.id, 600)]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    const [sum] = await ctx.query<{ s: string; n: number }>(`SELECT sum(amount_yen) AS s, count(*)::int AS n FROM credit_notes WHERE invoice_id = $1`, [inv.id]);
    expect(sum!.n).toBe(1);
    expect(Number((await invoiceRow(inv.id)).credited_yen)).toBe(Number(sum!.s));
    expect(await auditOf(inv.id, 'invoice.credit_note')).toHaveLength(1);
    const refused = results.find((r) => r.statusCode === 409)!;
    expect(refused.json().error.message).toMatch(/^返還額の合計が請求金額\(税込\)を超えます。この請求書に発行できる返還額は¥(400|500)までです$/);
  });

  it('a resubmitted request (same request_id) answers the note it issued, once, even when both arrive together', async () => {
    const acc = await account();
    const inv = await issueInvoice(acc, { subtotalYen: 1_000 });
    const body = { amount_yen: 300, reason: '二重送信の確認', request_id: randomUUID() };
    const [a, b] = await Promise.all([ctx.api('POST', `/admin/invoices/${inv.id}/credit-notes`, admin, body), ctx.api('POST', `/admin/invoices/${inv.id}/credit-notes`, admin, body)]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect(a.json().data.credit_note).toEqual(b.json().data.credit_note);
    const again = await ctx.api('POST', `/admin/invoices/${inv.id}/credit-notes`, admin, body);
    expect(again.json().data.credit_note.number).toBe(a.json().data.credit_note.number);
    const [notes] = await ctx.query<{ n: number }>(`SELECT count(*)::int AS n FROM credit_notes WHERE invoice_id = $1`, [inv.id]);
    expect(notes!.n).toBe(1);
    expect(Number((await invoiceRow(inv.id)).credited_yen)).toBe(300);
    expect(await auditOf(inv.id, 'invoice.credit_note')).toHaveLength(1);
    // The same id for another amount or another invoice is a conflict, not a second note.
    const other = await ctx.api('POST', `/admin/invoices/${inv.id}/credit-notes`, admin, { ...body, amount_yen: 200 });
    expect(other.statusCode).toBe(409);
    expect(other.json().error.message).toBe('この request_id は別の返還請求書の発行に使われています。新しい request_id で送信してください');
    const malformed = await ctx.api('POST', `/admin/invoices/${inv.id}/credit-notes`, admin, { ...body, request_id: 'x' });
    expect(malformed.statusCode).toBe(400);
  });

  it('refuses void and written-off invoices', async () => {
    const acc = await account();
    const voided = await issueInvoice(acc);
    await voidIt(voided.id);
    expect((await credit(voided.id, 100)).json().error.message).toBe('無効の請求書には返還請求書を発行できません');
    const off = await issueInvoice(acc, { status: 'overdue' });
    await writeOff(off.id);
    expect((await credit(off.id, 100)).statusCode).toBe(409);
  });
});

describe('write-off', () => {
  it('only an overdue invoice: uncollectible, retries stop, out of the overdue figures, one audit row', async () => {
    const acc = await account();
    const issued = await issueInvoice(acc);
    const refused = await writeOff(issued.id);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.message).toBe('貸倒れ処理できるのは支払期限超過の請求書のみです');

    const inv = await issueInvoice(acc, { status: 'overdue' });
    const dashBefore = (await ctx.api('GET', '/admin/dashboard', admin)).json().data.overdue;
    const res = await writeOff(inv.id, '破産手続開始のため');
    expect(res.statusCode).toBe(200);
    expect(res.json().data.invoice.status).toBe('uncollectible');
    const row = await invoiceRow(inv.id);
    expect(row).toMatchObject({ status: 'uncollectible', write_off_reason: '破産手続開始のため', next_retry_at: null });
    const dashAfter = (await ctx.api('GET', '/admin/dashboard', admin)).json().data.overdue;
    expect(dashAfter).toEqual({ count: dashBefore.count - 1, amount: dashBefore.amount - inv.totalYen });
    const audit = await auditOf(inv.id, 'invoice.write_off');
    expect(audit).toHaveLength(1);
    expect(audit[0]!.before).toMatchObject({ status: 'overdue', remaining_yen: inv.totalYen });
    expect(audit[0]!.after).toMatchObject({ status: 'uncollectible', write_off_reason: '破産手続開始のため', written_off_yen: inv.totalYen });
    expect((await writeOff(inv.id)).statusCode).toBe(409);
    expect(await auditOf(inv.id, 'invoice.write_off')).toHaveLength(1);
    const detail = (await ctx.api('GET', `/billing/invoices/${inv.id}`, acc.user)).json().data;
    expect(detail).toMatchObject({ status: 'uncollectible', write_off_reason: '破産手続開始のため' });
  });
});

describe('the database keeps the documents', () => {
  it('refuses changing a credit note, an issued invoice’s due date or payment method, and TRUNCATE', async () => {
    const acc = await account();
    const inv = await issueInvoice(acc);
    const note = (await credit(inv.id, 500)).json().data.credit_note;
    await expect(ctx.query(`UPDATE credit_notes SET amount_yen = 1 WHERE id = $1`, [note.id])).rejects.toThrow(/immutable/);
    await expect(ctx.query(`UPDATE credit_notes SET reason = 'x' WHERE id = $1`, [note.id])).rejects.toThrow(/immutable/);
    await expect(ctx.query(`DELETE FROM credit_notes WHERE id = $1`, [note.id])).rejects.toThrow(/cannot be deleted/);
    await expect(ctx.query(`UPDATE invoices SET due_date = '2099-12-31' WHERE id = $1`, [inv.id])).rejects.toThrow(/immutable/);
    await expect(ctx.query(`UPDATE invoices SET payment_method = 'card' WHERE id = $1`, [inv.id])).rejects.toThrow(/immutable/);
    await expect(ctx.query(`UPDATE invoices SET credited_yen = total_yen + 1 WHERE id = $1`, [inv.id])).rejects.toThrow(/invoices_credited/);
    for (const table of ['invoices', 'invoice_lines', 'payments', 'credit_notes']) {
      await expect(ctx.query(`TRUNCATE ${table} CASCADE`)).rejects.toThrow(/cannot be truncated/);
    }
    expect(Number((await invoiceRow(inv.id)).credited_yen)).toBe(500);
  });
});

describe('the API document', () => {
  it('lists the four operations with their ids and error answers', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>> };
    for (const [path, method, codes] of [
      ['/console/v1/admin/invoices/{id}/void', 'post', ['200', '400', '403', '404', '409']],
      ['/console/v1/admin/invoices/{id}/credit-notes', 'post', ['200', '400', '403', '404', '409']],
      ['/console/v1/admin/invoices/{id}/write-off', 'post', ['200', '400', '403', '404', '409']],
      ['/console/v1/billing/credit-notes/{id}/pdf', 'get', ['400', '403', '404']],
    ] as const) {
      const op = doc.paths[path]?.[method];
      expect(op?.operationId, path).toBeTruthy();
      for (const code of codes) expect(op!.responses, `${path} ${code}`).toHaveProperty(code);
    }
  });
});

describe('refusals', () => {
  it('answers 403 to non-admins and 400/404 in Japanese to bad input, never 500', async () => {
    const acc = await account();
    const inv = await issueInvoice(acc);
    for (const call of [voidIt(inv.id, 'x', acc.user), credit(inv.id, 100, 'x', acc.user), writeOff(inv.id, 'x', acc.user)]) {
      const res = await call;
      expect(res.statusCode).toBe(403);
    }
    const bad: Array<[unknown, number, RegExp]> = [
      [-1, 400, /返還額は1円以上の整数/],
      [0, 400, /返還額は1円以上の整数/],
      [1.5, 400, /返還額は1円以上の整数/],
      ['100', 400, /返還額は1円以上の整数/],
      [1e12, 400, /返還額が大きすぎます/],
      [inv.totalYen + 1, 409, /返還額の合計が請求金額/],
    ];
    for (const [amount, status, message] of bad) {
      const res = await credit(inv.id, amount);
      expect(res.statusCode, String(amount)).toBe(status);
      expect(JSON.stringify(res.json())).toMatch(message);
    }
    for (const reason of ['', '   ', 'あ'.repeat(501)]) {
      const res = await voidIt(inv.id, reason);
      expect(res.statusCode).toBe(400);
      expect(JSON.stringify(res.json())).toMatch(/理由/);
    }
    const missing = await ctx.api('POST', `/admin/invoices/${inv.id}/write-off`, admin, {});
    expect(missing.statusCode).toBe(400);
    expect(JSON.stringify(missing.json())).toMatch(/理由を入力してください/);
    const unknown = await voidIt(randomUUID());
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.message).toBe('請求書が見つかりません');
    const malformed = await credit('not-a-uuid', 100);
    expect(malformed.statusCode).toBe(400);
    expect(JSON.stringify(malformed.json())).toMatch(/請求書IDの形式が正しくありません/);
    expect((await ctx.api('GET', '/billing/credit-notes/nope/pdf', acc.user)).statusCode).toBe(400);
    expect((await ctx.api('GET', `/billing/credit-notes/${randomUUID()}/pdf`, acc.user)).statusCode).toBe(404);
    expect(await auditOf(inv.id, 'invoice.credit_note')).toHaveLength(0);
  });
});
