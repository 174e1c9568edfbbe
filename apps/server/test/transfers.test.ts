import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { dayOf } from '@poi/shared/billing-time';
import { transferMessages } from '../src/modules/transfers/transfers.service';
import { writeUsageEvents, type UsageEvent } from '../src/modules/usage/usage.repository';
import { bearer, signIn, uniqueEmail, withTestContext, type Actor, type TestContext } from './helpers';
import { instantsOverMonth, usageEvent } from './support/usage-events';

/*
 * Bank transfers (docs/billing.md "Bank transfers"): the list of expected transfers,
 * confirming one (exact, short within the fee tolerance, short beyond it, over → credit applied
 * by the next close), refusals, the receipt mail, and the daily overdue marker.
 */

let ctx: TestContext;
let admin: Actor;

const api: TestContext['api'] = (...args) => ctx.api(...args);

/** An individual billing account paying by bank transfer; answers its id and お客様番号. */
async function transferAccount(who: Actor, emails?: string[]): Promise<{ id: string; customerNumber: string }> {
  const view = (await api('GET', '/billing/account', who)).json().data;
  await ctx.query(`UPDATE billing_accounts SET payment_method = 'bank_transfer'${emails ? ', billing_emails = $2' : ''} WHERE id = $1`, emails ? [view.account.id, emails] : [view.account.id]);
  return { id: view.account.id, customerNumber: view.account.customer_number };
}

/** A corporate account paying by bank transfer (kana 'カブシキガイシャ…'). */
async function corporateTransferAccount(kana: string, email: string): Promise<{ id: string; customerNumber: string }> {
  const [corp] = await ctx.query<{ id: string }>(
    `INSERT INTO corporate_accounts (status, company_name, company_name_kana, postal_code, address, phone, billing_contact_name, billing_emails, payment_method)
     VALUES ('active', '株式会社振込', $1, '100-0001', '東京都千代田区', '03-0000-0000', '経理 花子', ARRAY[$2], 'bank_transfer') RETURNING id`,
    [kana, email],
  );
  const [acc] = await ctx.query<{ id: string; customer_number: string }>(
    `INSERT INTO billing_accounts (kind, corporate_account_id, customer_number, addressee, honorific, billing_emails, payment_method)
     VALUES ('corporate', $1, $2, '株式会社振込', '御中', ARRAY[$3], 'bank_transfer') RETURNING id, customer_number`,
    [corp!.id, String(1000000 + Math.floor(Math.random() * 8999999)).slice(0, 7), email],
  );
  return { id: acc!.id, customerNumber: acc!.customer_number };
}

let seq = 0;
/** An issued invoice the way the close makes one: draft, a line, then number and status. */
async function issue(account: { id: string; customerNumber: string }, total: number, dueDate: string, method: 'bank_transfer' | 'card' = 'bank_transfer', addressee = '振込 太郎'): Promise<string> {
  const subtotal = Math.ceil(total / 1.1);
  const tax = total - subtotal;
  const number = `POI-209912-${String(++seq).padStart(6, '0')}-${randomUUID().slice(0, 4)}`;
  const [inv] = await ctx.query<{ id: string }>(
    `INSERT INTO invoices (billing_account_id, kind, year_month, status, period_start, period_end, subtotal_yen, tax_yen, total_yen, payment_method, issuer_snapshot, recipient_snapshot)
     VALUES ($1, 'correction', '2099-12', 'draft', '2099-12-01', '2099-12-31', $2, $3, $4, $5, '{"name":"POI Cloud"}', $6) RETURNING id`,
    [account.id, subtotal, tax, total, method, JSON.stringify({ addressee, honorific: '様', customer_number: account.customerNumber })],
  );
  await ctx.query(`INSERT INTO invoice_lines (invoice_id, position, kind, description, quantity, unit_price_sen, amount_yen) VALUES ($1, 1, 'base_fee', '基本料金', $2, 100, $2)`, [inv!.id, subtotal]);
  await ctx.query(`UPDATE invoices SET number = $2, status = 'issued', issue_date = '2026-01-01', due_date = $3, issued_at = now() WHERE id = $1`, [inv!.id, number, dueDate]);
  return inv!.id;
}

const num = (v: unknown) => Number(v);
const invoiceRow = async (id: string) => (await ctx.query<Record<string, unknown>>('SELECT status, paid_yen, total_yen FROM invoices WHERE id = $1', [id]))[0]!;
const confirm = (id: string, body: Record<string, unknown>, who: Actor = admin) => api('POST', `/admin/transfers/${id}/confirm`, who, body);
const today = () => dayOf(new Date());

async function receiptTo(to: string, invoiceNumber: string) {
  await ctx.app.transfers.idle();
  const deadline = Date.now() + 5000;
  for (;;) {
    const mail = ctx.mailbox.received.filter((m) => m.to === to.toLowerCase() && m.subject.includes(invoiceNumber)).at(-1);
    if (mail) return mail;
    if (Date.now() > deadline) throw new Error(`no receipt for ${invoiceNumber} to ${to}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

withTestContext({ BILLING_JOBS: 'off', ISSUER_NAME: 'POI Cloud株式会社', BANK_NAME: 'テスト銀行', BANK_BRANCH: '本店', BANK_ACCOUNT_NUMBER: '1234567', BANK_ACCOUNT_HOLDER: 'ポイクラウド' }, async (opened) => {
  ctx = opened;
  admin = await ctx.admin();
});

describe('who may call the transfer calls', () => {
  it('answers 401 without a session and 403 to a user who is not an administrator', async () => {
    const user = await ctx.newUser('individual', 'transfer');
    const id = randomUUID();
    const body = { received_on: '2026-01-05', received_amount: 100, payer_name: 'x' };
    expect((await api('GET', '/admin/transfers/pending')).statusCode).toBe(401);
    expect((await api('POST', `/admin/transfers/${id}/confirm`, undefined, body)).statusCode).toBe(401);
    expect((await api('GET', '/admin/transfers/pending', user)).statusCode).toBe(403);
    expect((await confirm(id, body, user)).statusCode).toBe(403);
    for (const type of ['trial', 'corporate', 'data_provider']) {
      const s = await signIn(ctx, uniqueEmail(type));
      if (type !== 'trial') expect((await api('POST', `/admin/users/${s.user.id}/change-type`, admin, { account_type: type, reason: 'テスト' })).statusCode).toBe(200);
      const who = { token: s.token, id: s.user.id, email: '' };
      expect((await api('GET', '/admin/transfers/pending', who)).statusCode, type).toBe(403);
      expect((await confirm(id, body, who)).statusCode, type).toBe(403);
    }
    expect((await api('GET', '/admin/transfers/pending', admin)).statusCode).toBe(200);
  });
});

describe('expected transfers', () => {
  it('lists open bank-transfer invoices with customer, kana, お客様番号, amounts, days overdue; by due date then number; pages with an exact total', async () => {
    const user = await ctx.newUser('individual', 'transfer');
    const acc = await transferAccount(user);
    const corp = await corporateTransferAccount('カブシキガイシャフリコミ', uniqueEmail('corp'));
    const before = (await api('GET', '/admin/transfers/pending?limit=100', admin)).json().data.total as number;
    const late = await issue(acc, 1100, '2020-01-31');
    const soon = await issue(corp, 5500, '2099-01-31', 'bank_transfer', '株式会社振込');
    const later = await issue(acc, 2200, '2099-02-28');
    await issue(acc, 3300, '2020-01-31', 'card'); // card: not a transfer
    const paid = await issue(acc, 1000, '2020-01-31');
    await ctx.query(`UPDATE invoices SET status = 'paid', paid_yen = total_yen WHERE id = $1`, [paid]);
    const part = await issue(acc, 4400, '2099-01-31');
    await ctx.query(`UPDATE invoices SET status = 'partially_paid', paid_yen = 400 WHERE id = $1`, [part]);

    const res = await api('GET', '/admin/transfers/pending?limit=100', admin);
    expect(res.statusCode, res.body).toBe(200);
    const { transfers, total } = res.json().data;
    expect(total).toBe(before + 4);
    const mine = transfers.filter((t: { invoice_id: string }) => [late, soon, later, part].includes(t.invoice_id));
    expect(mine.map((t: { invoice_id: string }) => t.invoice_id)).toEqual([late, ...[soon, part].sort((a, b) => (numberOf(transfers, a) < numberOf(transfers, b) ? -1 : 1)), later]);
    const lateRow = mine[0];
    const expectedDays = Math.round((Date.parse(`${today()}T00:00:00Z`) - Date.parse('2020-01-31T00:00:00Z')) / 86400000);
    expect(lateRow).toMatchObject({ customer_name: '振込 太郎', customer_kana: null, customer_number: acc.customerNumber, total: 1100, paid: 0, remaining: 1100, due_date: '2020-01-31', days_overdue: expectedDays, status: 'issued' });
    expect(mine.find((t: { invoice_id: string }) => t.invoice_id === soon)).toMatchObject({ customer_name: '株式会社振込', customer_kana: 'カブシキガイシャフリコミ', customer_number: corp.customerNumber, days_overdue: 0 });
    expect(mine.find((t: { invoice_id: string }) => t.invoice_id === part)).toMatchObject({ paid: 400, remaining: 4000, status: 'partially_paid' });
    const keys = transfers.map((t: { due_date: string; invoice_number: string }) => `${t.due_date}|${t.invoice_number}`);
    expect(keys).toEqual([...keys].sort());

    const page = (await api('GET', '/admin/transfers/pending?limit=2&offset=1', admin)).json().data;
    expect(page.total).toBe(total);
    expect(page.transfers.map((t: { invoice_id: string }) => t.invoice_id)).toEqual(transfers.slice(1, 3).map((t: { invoice_id: string }) => t.invoice_id));
    for (const bad of ['limit=0', 'limit=101', 'offset=-1', 'limit=abc']) {
      const r = await api('GET', `/admin/transfers/pending?${bad}`, admin);
      expect(r.statusCode, bad).toBe(400);
      expect(JSON.stringify(r.json()), bad).toMatch(/件数|開始位置/);
    }
  });
});

function numberOf(transfers: Array<{ invoice_id: string; invoice_number: string }>, id: string): string {
  return transfers.find((t) => t.invoice_id === id)!.invoice_number;
}

describe('confirming a transfer', () => {
  it('exact amount → paid, with the payment, a receipt number, an audit row and a Japanese receipt mail to every billing e-mail; a second confirmation is a 409', async () => {
    const user = await ctx.newUser('individual', 'transfer');
    const extra = uniqueEmail('keiri');
    const acc = await transferAccount(user, [user.email, extra]);
    const id = await issue(acc, 11000, '2099-01-31');
    const res = await confirm(id, { received_on: '2026-01-20', received_amount: 11000, payer_name: `${acc.customerNumber} フリコミ タロウ`, note: '三井住友 振込' });
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data.invoice).toMatchObject({ id, status: 'paid', paid: 11000, remaining: 0 });
    expect(data.payment).toMatchObject({ method: 'bank_transfer', amount: 11000, fee: 0, received_on: '2026-01-20', payer_name: `${acc.customerNumber} フリコミ タロウ` });
    expect(data.payment.receipt_number).toMatch(/\S/);
    expect(data.credit_added).toBe(0);
    const audit = await ctx.query<{ actor_id: string; action: string }>(`SELECT actor_id, action FROM audit_logs WHERE target_id = $1`, [id]);
    expect(audit).toEqual([{ actor_id: admin.id, action: 'invoice.payment_recorded' }]);
    const number = data.invoice.number as string;
    for (const to of [user.email, extra]) {
      const mail = await receiptTo(to, number);
      expect(mail.subject).toContain('ご入金を確認しました');
      expect(mail.text).toContain(data.payment.receipt_number);
      expect(mail.text).toContain('¥11,000');
      expect(mail.text).toContain('お支払いは完了しました');
      expect(mail.html).toContain('<html lang="ja">');
    }
    const again = await confirm(id, { received_on: '2026-01-20', received_amount: 11000, payer_name: 'x' });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.message).toBe(transferMessages.settled);
    expect(await ctx.query(`SELECT 1 FROM payments WHERE invoice_id = $1`, [id])).toHaveLength(1);
  });

  it('two confirmations of the same transfer at once: one records it, the other is a 409', async () => {
    const user = await ctx.newUser('individual', 'transfer');
    const acc = await transferAccount(user);
    const id = await issue(acc, 3300, '2099-01-31');
    const body = { received_on: '2026-01-20', received_amount: 3300, payer_name: 'フリコミ' };
    const results = await Promise.all([confirm(id, body), confirm(id, body)]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect(await ctx.query(`SELECT 1 FROM payments WHERE invoice_id = $1`, [id])).toHaveLength(1);
    expect(await ctx.query(`SELECT 1 FROM audit_logs WHERE target_id = $1`, [id])).toHaveLength(1);
  });

  it('short by ≤ ¥1,000: booked as the transfer fee (paid) when asked, else partially paid; more short: partially paid and booking it as fee is refused', async () => {
    const user = await ctx.newUser('individual', 'transfer');
    const acc = await transferAccount(user);
    const fee = await issue(acc, 11000, '2099-01-31');
    const r1 = await confirm(fee, { received_on: '2026-01-20', received_amount: 10000, payer_name: 'フリコミ', book_shortfall_as_fee: true });
    expect(r1.statusCode, r1.body).toBe(200);
    expect(r1.json().data.invoice).toMatchObject({ status: 'paid', paid: 11000, remaining: 0 });
    expect(r1.json().data.payment).toMatchObject({ amount: 10000, fee: 1000 });
    expect((await receiptTo(user.email, r1.json().data.invoice.number)).text).toContain('振込手数料として処理');

    const partial = await issue(acc, 11000, '2099-01-31');
    const r2 = await confirm(partial, { received_on: '2026-01-20', received_amount: 10560, payer_name: 'フリコミ' });
    expect(r2.json().data.invoice).toMatchObject({ status: 'partially_paid', paid: 10560, remaining: 440 });
    expect((await receiptTo(user.email, r2.json().data.invoice.number)).text).toContain('残額 ¥440 のお振込みをお願いいたします');
    // The rest arrives later: paid.
    const r3 = await confirm(partial, { received_on: '2026-01-25', received_amount: 440, payer_name: 'フリコミ' });
    expect(r3.json().data.invoice).toMatchObject({ status: 'paid', remaining: 0 });

    const big = await issue(acc, 11000, '2099-01-31');
    const refused = await confirm(big, { received_on: '2026-01-20', received_amount: 9999, payer_name: 'フリコミ', book_shortfall_as_fee: true });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.message).toBe(transferMessages.shortfallTooLarge);
    expect(await ctx.query(`SELECT 1 FROM payments WHERE invoice_id = $1`, [big])).toHaveLength(0);
    expect(await invoiceRow(big)).toMatchObject({ status: 'issued' });
    const r4 = await confirm(big, { received_on: '2026-01-20', received_amount: 9999, payer_name: 'フリコミ' });
    expect(r4.json().data.invoice).toMatchObject({ status: 'partially_paid', paid: 9999, remaining: 1001 });
  });

  it('refuses in Japanese with nothing written: bad input (400), unknown invoice (404), a card invoice or a draft (409), a settled one (409)', async () => {
    const user = await ctx.newUser('individual', 'transfer');
    const acc = await transferAccount(user);
    const id = await issue(acc, 5000, '2099-01-31');
    for (const [body, text] of [
      [{ received_on: '2026/01/20', received_amount: 5000, payer_name: 'x' }, '入金日は YYYY-MM-DD'],
      [{ received_on: '2026-02-30', received_amount: 5000, payer_name: 'x' }, transferMessages.invalidDate],
      [{ received_on: '2999-01-01', received_amount: 5000, payer_name: 'x' }, transferMessages.futureDate],
      [{ received_on: '2026-01-20', received_amount: 0, payer_name: 'x' }, '入金額は1円以上'],
      [{ received_on: '2026-01-20', received_amount: 12.5, payer_name: 'x' }, '入金額は1円以上'],
      [{ received_on: '2026-01-20', received_amount: 5000, payer_name: '  ' }, '振込名義を入力してください'],
      [{ received_on: '2026-01-20', received_amount: 5000 }, ''],
    ] as const) {
      const res = await confirm(id, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(res.json()), JSON.stringify(body)).toContain(text);
      expect(JSON.stringify(res.json())).toMatch(/[ぁ-んァ-ン一-龥]/);
    }
    const badId = await confirm('not-a-uuid', { received_on: '2026-01-20', received_amount: 5000, payer_name: 'x' });
    expect(badId.statusCode).toBe(400);
    expect(JSON.stringify(badId.json())).toContain('請求書IDの形式が正しくありません');
    expect(await ctx.query(`SELECT 1 FROM payments WHERE invoice_id = $1`, [id])).toHaveLength(0);
    expect(await invoiceRow(id)).toMatchObject({ status: 'issued' });

    const unknown = await confirm(randomUUID(), { received_on: '2026-01-20', received_amount: 5000, payer_name: 'x' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.message).toBe(transferMessages.notFound);

    const card = await issue(acc, 5000, '2099-01-31', 'card');
    const onCard = await confirm(card, { received_on: '2026-01-20', received_amount: 5000, payer_name: 'x' });
    expect(onCard.statusCode).toBe(409);
    expect(onCard.json().error.message).toBe(transferMessages.notBankTransfer);

    const [draft] = await ctx.query<{ id: string }>(
      `INSERT INTO invoices (billing_account_id, year_month, status, period_start, period_end, subtotal_yen, tax_yen, total_yen, payment_method, issuer_snapshot, recipient_snapshot)
       VALUES ($1, '2098-01', 'draft', '2098-01-01', '2098-01-31', 100, 10, 110, 'bank_transfer', '{}', '{}') RETURNING id`,
      [acc.id],
    );
    expect((await confirm(draft!.id, { received_on: '2026-01-20', received_amount: 110, payer_name: 'x' })).statusCode).toBe(409);

    const voided = await issue(acc, 5000, '2099-01-31');
    await ctx.query(`UPDATE invoices SET status = 'void' WHERE id = $1`, [voided]);
    const onVoid = await confirm(voided, { received_on: '2026-01-20', received_amount: 5000, payer_name: 'x' });
    expect(onVoid.statusCode).toBe(409);
    expect(onVoid.json().error.message).toBe(transferMessages.settled);
  });

  it('over-payment → paid and the excess is credit, which the next close applies to the next invoice', async () => {
    const user = await ctx.newUser('individual', 'transfer');
    const acc = await transferAccount(user);
    const [ym1, ym2] = ['2025-03', '2025-04'];
    await writeUsageEvents(ctx.database.db, usage(user.id, ym1, 20)); // 20 × ¥10 = ¥200 + ¥20 tax
    await ctx.app.billingClose.service.closeMonth(ym1);
    const [first] = await ctx.query<{ id: string; total_yen: string; status: string; due_date: string }>(
      `SELECT id, total_yen, status, due_date::text AS due_date FROM invoices WHERE billing_account_id = $1 AND year_month = $2`,
      [acc.id, ym1],
    );
    expect([num(first!.total_yen), first!.status, first!.due_date]).toEqual([220, 'issued', '2025-04-30']);
    const res = await confirm(first!.id, { received_on: '2025-04-10', received_amount: 1000, payer_name: 'フリコミ' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ invoice: { status: 'paid', paid: 220, remaining: 0 }, credit_added: 780 });
    expect(res.json().data.payment).toMatchObject({ amount: 1000, fee: 0 });
    expect((await api('GET', '/billing/account', user)).json().data.account.credit).toBe(780);
    expect((await receiptTo(user.email, res.json().data.invoice.number)).text).toContain('¥780 はクレジットとしてお預かりし');

    await writeUsageEvents(ctx.database.db, usage(user.id, ym2, 30)); // ¥300 + ¥30
    await ctx.app.billingClose.service.closeMonth(ym2);
    const [second] = await ctx.query<{ total_yen: string; credit_applied_yen: string; status: string }>(
      `SELECT total_yen, credit_applied_yen, status FROM invoices WHERE billing_account_id = $1 AND year_month = $2`,
      [acc.id, ym2],
    );
    expect([num(second!.total_yen), num(second!.credit_applied_yen), second!.status]).toEqual([330, 330, 'paid']);
    expect((await api('GET', '/billing/account', user)).json().data.account.credit).toBe(450);
  });
});

describe('the overdue marker', () => {
  it('moves issued and partially paid transfer invoices past their due date (Japan time) to overdue, once, with an audit row', async () => {
    const user = await ctx.newUser('individual', 'transfer');
    const acc = await transferAccount(user);
    const due = await issue(acc, 1100, '2030-03-31');
    const part = await issue(acc, 2200, '2030-03-31');
    await ctx.query(`UPDATE invoices SET status = 'partially_paid', paid_yen = 200 WHERE id = $1`, [part]);
    const notYet = await issue(acc, 3300, '2030-04-01');
    const card = await issue(acc, 4400, '2030-03-01', 'card');
    // 2030-03-31 23:59 JST: nothing is late yet.
    await ctx.app.transfers.markOverdue(new Date('2030-03-31T14:59:00Z'));
    expect((await invoiceRow(due)).status).toBe('issued');
    // 2030-04-01 00:00 JST: the 31st has passed.
    const { marked } = await ctx.app.transfers.markOverdue(new Date('2030-03-31T15:00:00Z'));
    expect(marked).toBeGreaterThanOrEqual(2);
    expect((await invoiceRow(due)).status).toBe('overdue');
    expect((await invoiceRow(part)).status).toBe('overdue');
    expect((await invoiceRow(notYet)).status).toBe('issued');
    expect((await invoiceRow(card)).status).toBe('issued'); // card invoices follow their retries
    await ctx.app.transfers.markOverdue(new Date('2030-04-02T00:00:00Z'));
    const audit = await ctx.query<{ action: string; before: { status: string }; actor_id: string | null }>(`SELECT action, before, actor_id FROM audit_logs WHERE target_id = $1 OR target_id = $2 ORDER BY target_id = $2`, [due, part]);
    expect(audit.map((a) => [a.action, a.before.status, a.actor_id])).toEqual([
      ['invoice.overdue', 'issued', null],
      ['invoice.overdue', 'partially_paid', null],
    ]);
    // Listed as overdue, and a later transfer still settles it.
    const listed = (await api('GET', '/admin/transfers/pending?limit=100', admin)).json().data.transfers.find((t: { invoice_id: string }) => t.invoice_id === due);
    expect(listed).toMatchObject({ status: 'overdue' });
    const res = await confirm(due, { received_on: today(), received_amount: 1100, payer_name: 'フリコミ' });
    expect(res.json().data.invoice.status).toBe('paid');
  });
});

/** n searches spread over a Japan-time month at ¥10 base fee each (none free). */
function usage(userId: string, yearMonth: string, n: number): UsageEvent[] {
  return instantsOverMonth(yearMonth, n).map((occurredAt) => usageEvent(userId, occurredAt, { baseFeeSen: 1000, amountSen: 1000 }));
}

describe('bank statement upload', () => {
  function multipart(file: Buffer, name = 'statement.csv') {
    const boundary = `----poi${Math.random().toString(36).slice(2)}`;
    const payload = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: text/csv\r\n\r\n`),
      file,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
  }
  const upload = (file: Buffer, who: Actor = admin) => {
    const { payload, headers } = multipart(file);
    return ctx.app.inject({ method: 'POST', url: '/console/v1/admin/transfers/statement', headers: { ...headers, ...bearer(who.token) }, payload });
  };
  const fullWidth = (s: string) => s.replace(/\d/g, (d) => String.fromCharCode(d.charCodeAt(0) + 0xfee0));

  it('proposes matches by お客様番号 and amount from a UTF-8 or Shift_JIS statement, and books nothing', async () => {
    const a = await transferAccount(await ctx.newUser('individual', 'stmt-a'));
    const b = await transferAccount(await ctx.newUser('individual', 'stmt-b'));
    const c = await transferAccount(await ctx.newUser('individual', 'stmt-c'));
    const invA = await issue(a, 11_001, '2099-01-31', 'bank_transfer', '山田 太郎');
    const invB = await issue(b, 5_503, '2099-01-31', 'bank_transfer', '鈴木 花子');
    const invC = await issue(c, 77_777, '2099-01-31', 'bank_transfer', '謎野 商会');
    const wrongCheck = a.customerNumber.slice(0, 6) + String((Number(a.customerNumber[6]) + 1) % 10);
    const csv = [
      '日付,金額,振込依頼人名',
      `2026/12/01,"11,001",${a.customerNumber} ヤマダ タロウ`,
      `2026-12-02,5003,${fullWidth(b.customerNumber)}スズキ ハナコ`,
      '20261203,77777,カ)ナゾノシヨウカイ',
      '2026/12/04,123,タナカ イチロウ',
      `2026/12/05,99,${wrongCheck}ヤマダ`,
    ].join('\r\n');
    const iconv = (await import('iconv-lite')).default;
    for (const file of [Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(csv)]), iconv.encode(csv, 'Shift_JIS')]) {
      const res = await upload(file);
      expect(res.statusCode, res.body).toBe(200);
      const proposals = res.json().data.proposals as Array<{ line: number; match: string; invoice: { invoice_id: string } | null; difference: number | null; customer_number: string | null; payer_name: string }>;
      expect(proposals.map((p) => [p.line, p.match, p.invoice?.invoice_id ?? null, p.difference])).toEqual([
        [2, 'exact', invA, 0],
        [3, 'customer_number', invB, -500],
        [4, 'amount', invC, 0],
        [5, 'none', null, null],
        [6, 'none', null, null],
      ]);
      expect(proposals[1]!.customer_number).toBe(b.customerNumber);
      expect(proposals[1]!.payer_name).toContain('スズキ');
      expect(proposals[4]!.customer_number).toBeNull();
      // A number with a wrong check digit is reported as such, not as a line without a number.
      const reasons = (res.json().data.proposals as Array<{ reason: string }>).map((p) => p.reason);
      expect(reasons[3]).toBe('お客様番号がなく、金額の一致する請求書もありません');
      expect(reasons[4]).toBe(`お客様番号 ${wrongCheck} のチェックディジットが正しくありません(金額の一致する請求書もありません)`);
    }
    for (const id of [invA, invB, invC]) expect(await invoiceRow(id)).toMatchObject({ status: 'issued', paid_yen: expect.anything() });
    expect(num((await invoiceRow(invA)).paid_yen)).toBe(0);
  });

  it('refuses a bad statement with the line in Japanese, a file over 1 MB, and non-admins', async () => {
    const bad = await upload(Buffer.from('日付,金額,振込依頼人名\r\n2026/12/01,abc,ヤマダ\r\n'));
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toBe('2行目: 金額「abc」は1円以上の整数で入力してください');
    const badDate = await upload(Buffer.from('2026/02/30,100,ヤマダ\r\n'));
    expect(badDate.statusCode).toBe(400);
    expect(badDate.json().error.message).toContain('1行目: 日付');
    expect((await upload(Buffer.from('2026/12/01,100\r\n'))).json().error.message).toContain('3列');
    const big = await upload(Buffer.alloc(1024 * 1024 + 10, 0x41));
    expect(big.statusCode).toBe(413);
    const empty = await ctx.app.inject({ method: 'POST', url: '/console/v1/admin/transfers/statement', headers: bearer(admin.token), payload: {} });
    expect(empty.statusCode).toBe(400);
    const user = await ctx.newUser('individual', 'stmt-user');
    expect((await upload(Buffer.from('2026/12/01,100,ヤマダ'), user)).statusCode).toBe(403);
  });

  it('answers a statement of 11 MB over a real socket with a prompt 413 and keeps serving', async () => {
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(ctx.app.server.address() as { port: number }).port}`;
    const big = multipart(Buffer.from('2026/12/01,1000,ヤマダ タロウ\r\n'.repeat(Math.ceil((11 * 1024 * 1024) / 40))));
    const started = Date.now();
    const res = await fetch(`${base}/console/v1/admin/transfers/statement`, {
      method: 'POST',
      headers: { ...big.headers, ...bearer(admin.token) },
      body: big.payload,
      signal: AbortSignal.timeout(3000),
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe('入金明細のファイルは1MB以下にしてください');
    expect(Date.now() - started).toBeLessThan(3000);
    const small = multipart(Buffer.from('2026/12/01,100,タナカ\r\n'));
    const ok = await fetch(`${base}/console/v1/admin/transfers/statement`, { method: 'POST', headers: { ...small.headers, ...bearer(admin.token) }, body: small.payload, signal: AbortSignal.timeout(5000) });
    expect(ok.status).toBe(200);
  }, 20_000);

  it('downloads every pending transfer as CSV', async () => {
    const res = await api('GET', '/admin/transfers/pending.csv', admin);
    expect(res.statusCode).toBe(200);
    expect(res.body.startsWith('\uFEFF請求書番号,お客様')).toBe(true);
    const total = (await api('GET', '/admin/transfers/pending?limit=1', admin)).json().data.total as number;
    expect(res.body.trim().split('\r\n')).toHaveLength(total + 1);
  });
});
