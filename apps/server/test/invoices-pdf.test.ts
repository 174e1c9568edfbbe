import { createHash, randomInt, randomUUID } from 'node:crypto';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDigit } from '../src/modules/billing-accounts/customer-number';
import { captureLog, createTestContext, type Actor, type TestContext } from './helpers';

/*
 * The invoice (適格請求書) and receipt PDFs through their routes: the text read back with
 * pdfjs-dist, who may fetch them, and the same bytes on every render of an issued invoice.
 */

let ctx: TestContext;
const log = captureLog();
let admin: Actor;

const REGISTRATION = 'T1234567890123';
const ISSUER = {
  name: 'POI Cloud株式会社',
  representative: '山田太郎',
  address: '東京都千代田区丸の内1-1-1',
  phone: '03-1234-5678',
  phone_hours: '平日10時〜17時',
  email: 'billing@poi.example',
  registration_number: REGISTRATION,
};

beforeAll(async () => {
  ctx = await createTestContext(
    {
      LOG_LEVEL: 'warn',
      BILLING_JOBS: 'off',
      ISSUER_NAME: 'POI Cloud株式会社',
      ISSUER_REGISTRATION_NUMBER: REGISTRATION,
      BANK_NAME: 'みずほ銀行',
      BANK_BRANCH: '丸の内支店',
      BANK_ACCOUNT_TYPE: '普通',
      BANK_ACCOUNT_NUMBER: '7654321',
      BANK_ACCOUNT_HOLDER: 'ポイクラウド（カ',
    },
    { logStream: log.stream },
  );
  admin = await ctx.admin();
});

afterAll(async () => {
  await ctx?.close();
});

const actor = () => ctx.newUser('trial', 'pdf');

const get = (url: string, who?: Actor) => ctx.api('GET', url, who);

function customerNumber(): string {
  const body = String(randomInt(100000, 1000000));
  return `${body}${checkDigit(body)}`;
}

interface Account {
  id: string;
  customerNumber: string;
  recipient: Record<string, unknown>;
}

async function individualAccount(user: Actor, addressee: string): Promise<Account> {
  const number = customerNumber();
  const [row] = await ctx.query<{ id: string }>(
    `INSERT INTO billing_accounts (kind, user_id, customer_number, addressee, honorific, postal_code, address, payment_method)
     VALUES ('individual', $1, $2, $3, '様', '150-0001', '東京都渋谷区神宮前1-2-3', 'card') RETURNING id`,
    [user.id, number, addressee],
  );
  return { id: row!.id, customerNumber: number, recipient: { kind: 'individual', addressee, honorific: '様', postal_code: '150-0001', address: '東京都渋谷区神宮前1-2-3', customer_number: number } };
}

async function corporateAccount(owner: Actor, company: string, role: 'owner' | 'member' = 'owner', members: Actor[] = []): Promise<Account> {
  const [corp] = await ctx.query<{ id: string }>(
    `INSERT INTO corporate_accounts (status, company_name, company_name_kana, postal_code, address, phone, billing_contact_name, billing_emails, payment_method)
     VALUES ('active', $1, 'サンプルショウジ', '100-0005', '東京都千代田区丸の内2-2-2', '03-0000-0000', '経理 花子', ARRAY['ap@example.com'], 'bank_transfer') RETURNING id`,
    [company],
  );
  await ctx.query(`UPDATE users SET corporate_account_id = $1, corporate_role = $2 WHERE id = $3`, [corp!.id, role, owner.id]);
  for (const m of members) await ctx.query(`UPDATE users SET corporate_account_id = $1, corporate_role = 'member' WHERE id = $2`, [corp!.id, m.id]);
  const number = customerNumber();
  const [row] = await ctx.query<{ id: string }>(
    `INSERT INTO billing_accounts (kind, corporate_account_id, customer_number, addressee, honorific, postal_code, address, payment_method)
     VALUES ('corporate', $1, $2, $3, '御中', '100-0005', '東京都千代田区丸の内2-2-2', 'bank_transfer') RETURNING id`,
    [corp!.id, number, company],
  );
  return { id: row!.id, customerNumber: number, recipient: { kind: 'corporate', addressee: company, honorific: '御中', postal_code: '100-0005', address: '東京都千代田区丸の内2-2-2', customer_number: number } };
}

interface Line {
  description: string;
  quantity: number;
  unitPriceSen: number;
}

let invoiceSeq = 0;

/** An invoice as the close issues it: a draft, its lines, then number and status in one update. */
async function issueInvoice(
  account: Account,
  options: { lines?: Line[]; method?: 'card' | 'bank_transfer'; issuer?: Record<string, unknown>; creditYen?: number; issue?: boolean } = {},
): Promise<{ id: string; number: string | null; totalYen: number; taxYen: number; subtotalYen: number }> {
  const lines = options.lines ?? [
    { description: 'データセット「東京都の飲食店」の検索', quantity: 12_345, unitPriceSen: 700 },
    { description: '基本料金（無料枠を超えた検索）', quantity: 2_000, unitPriceSen: 3 },
    { description: '月額料金', quantity: 1, unitPriceSen: 98_000 },
  ];
  const amounts = lines.map((l) => Math.floor((l.quantity * l.unitPriceSen) / 100));
  const subtotalYen = amounts.reduce((s, a) => s + a, 0);
  const taxYen = Math.floor((subtotalYen * 10) / 100);
  const totalYen = subtotalYen + taxYen;
  const seq = ++invoiceSeq;
  // Each invoice its own month, so (account, month) stays unique.
  const month = 1 + (seq % 12);
  const year = 2020 + Math.floor(seq / 12);
  const yearMonth = `${year}-${String(month).padStart(2, '0')}`;
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const [inv] = await ctx.query<{ id: string }>(
    `INSERT INTO invoices (billing_account_id, year_month, status, period_start, period_end, subtotal_yen, tax_yen, total_yen, credit_applied_yen, payment_method, issuer_snapshot, recipient_snapshot)
     VALUES ($1, $2, 'draft', $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
    [account.id, yearMonth, `${yearMonth}-01`, `${yearMonth}-${last}`, subtotalYen, taxYen, totalYen, options.creditYen ?? 0, options.method ?? 'card', JSON.stringify(options.issuer ?? ISSUER), JSON.stringify(account.recipient)],
  );
  for (const [i, l] of lines.entries()) {
    await ctx.query(
      `INSERT INTO invoice_lines (invoice_id, position, kind, description, quantity, unit_price_sen, amount_yen) VALUES ($1, $2, 'dataset', $3, $4, $5, $6)`,
      [inv!.id, i + 1, l.description, l.quantity, l.unitPriceSen, amounts[i]],
    );
  }
  if (options.issue === false) return { id: inv!.id, number: null, totalYen, taxYen, subtotalYen };
  const number = `POI-${yearMonth.replace('-', '')}-${String(seq).padStart(6, '0')}`;
  const issueDate = month === 12 ? `${year + 1}-01-01` : `${year}-${String(month + 1).padStart(2, '0')}-01`;
  await ctx.query(`UPDATE invoices SET number = $1, status = 'issued', issue_date = $2, due_date = $3, issued_at = now() WHERE id = $4`, [
    number,
    issueDate,
    options.method === 'bank_transfer' ? issueDate.replace(/-01$/, '-28') : issueDate,
    inv!.id,
  ]);
  return { id: inv!.id, number, totalYen, taxYen, subtotalYen };
}

async function addPayment(invoice: { id: string; totalYen: number }, account: Account, method: 'card' | 'bank_transfer', receivedOn: string): Promise<{ id: string; receiptNumber: string }> {
  const receiptNumber = `R-${receivedOn.slice(0, 7).replace('-', '')}-${String(++invoiceSeq).padStart(6, '0')}`;
  const [row] = await ctx.query<{ id: string }>(
    `INSERT INTO payments (invoice_id, billing_account_id, method, amount_yen, received_on, receipt_number) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
    [invoice.id, account.id, method, invoice.totalYen, receivedOn, receiptNumber],
  );
  return { id: row!.id, receiptNumber };
}

/** The text of every page, as pdfjs-dist reads it back, with all white space removed. */
async function pdfText(bytes: Buffer): Promise<{ pages: string[]; all: string }> {
  const doc = await getDocument({ data: new Uint8Array(bytes), verbosity: 0 }).promise;
  const pages: string[] = [];
  for (let i = 1; i <= doc.numPages; i++) {
    const content = await (await doc.getPage(i)).getTextContent();
    pages.push(content.items.map((item) => ('str' in item ? item.str : '')).join('').replace(/[\s\u3000]+/g, ''));
  }
  await doc.destroy();
  return { pages, all: pages.join('\n') };
}

const yen = (n: number) => `¥${n.toLocaleString('ja-JP')}`;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('invoice PDF', () => {
  it('holds every 適格請求書 item in Japanese, is the same bytes every time and keeps its SHA-256', async () => {
    const user = await actor();
    const account = await individualAccount(user, '山田 花子');
    const inv = await issueInvoice(account);
    const res = await get(`/billing/invoices/${inv.id}/pdf`, user);
    expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${inv.number}.pdf"; filename*=UTF-8''${inv.number}.pdf`);
    expect(res.headers['cache-control']).toContain('no-store');
    expect(res.headers['cache-control']).toContain('private');
    const body = res.rawPayload;
    expect(body.subarray(0, 5).toString()).toBe('%PDF-');

    const { all } = await pdfText(body);
    expect(all).toContain('請求書（適格請求書）');
    expect(all).toContain(`登録番号${REGISTRATION}`);
    expect(all).toContain('POICloud株式会社');
    expect(all).toContain('山田花子様');
    expect(all).toContain(`お客様番号${account.customerNumber}`);
    expect(all).toContain(`請求書番号${inv.number}`);
    const [row] = await ctx.query<{ period_start: string; period_end: string; issue_date: string }>(
      `SELECT to_char(period_start, 'YYYY-MM-DD') AS period_start, to_char(period_end, 'YYYY-MM-DD') AS period_end, to_char(issue_date, 'YYYY-MM-DD') AS issue_date FROM invoices WHERE id = $1`,
      [inv.id],
    );
    const ja = (d: string) => {
      const [y, m, day] = d.split('-').map(Number);
      return `${y}年${m}月${day}日`;
    };
    expect(all).toContain(`対象期間${ja(row!.period_start)}〜${ja(row!.period_end)}`);
    expect(all).toContain(`発行日${ja(row!.issue_date)}`);
    // Lines: 品目, 数量, 単価 (yen, 2 decimals), 金額.
    expect(all).toContain('データセット「東京都の飲食店」の検索12,345¥7.00¥86,415');
    expect(all).toContain('基本料金（無料枠を超えた検索）2,000¥0.03¥60');
    expect(all).toContain(`小計${yen(inv.subtotalYen)}`);
    expect(all).toContain(`10%対象${yen(inv.subtotalYen)}消費税${yen(inv.taxYen)}`);
    expect(all).toContain(`合計（税込）${yen(inv.totalYen)}`);
    expect(all).toContain(`ご請求金額（税込）${yen(inv.totalYen)}-`);
    // A card invoice has no transfer instructions.
    expect(all).not.toContain('お振込先');
    expect(all).not.toContain('振込手数料');

    const [stored] = await ctx.query<{ pdf_sha256: string }>(`SELECT pdf_sha256 FROM invoices WHERE id = $1`, [inv.id]);
    expect(stored!.pdf_sha256).toBe(sha256(body));
    const again = await get(`/billing/invoices/${inv.id}/pdf`, user);
    expect(sha256(again.rawPayload)).toBe(sha256(body));
    // An admin reads the same document.
    const byAdmin = await get(`/billing/invoices/${inv.id}/pdf`, admin);
    expect(byAdmin.statusCode).toBe(200);
    expect(sha256(byAdmin.rawPayload)).toBe(sha256(body));
    expect(log.find('invoice PDF differs from its first render')).toHaveLength(0);
    // Once kept, the hash cannot be replaced (the immutability trigger).
    await expect(ctx.query(`UPDATE invoices SET pdf_sha256 = 'x' WHERE id = $1`, [inv.id])).rejects.toThrow(/immutable/);
  });

  it('is a plain 請求書 without a registration number in the issuer snapshot', async () => {
    const user = await actor();
    const account = await individualAccount(user, '佐藤 一郎');
    const inv = await issueInvoice(account, { issuer: { ...ISSUER, registration_number: null } });
    const res = await get(`/billing/invoices/${inv.id}/pdf`, user);
    expect(res.statusCode).toBe(200);
    const { all } = await pdfText(res.rawPayload);
    expect(all).toContain('請求書');
    expect(all).not.toContain('適格請求書');
    expect(all).not.toContain('登録番号');
    expect(all).toContain('佐藤一郎様');
  });

  it('shows where and how to transfer on a bank-transfer invoice, with credit applied and what is due', async () => {
    const owner = await actor();
    const account = await corporateAccount(owner, '株式会社サンプル商事');
    const inv = await issueInvoice(account, { method: 'bank_transfer', creditYen: 1_000 });
    const res = await get(`/billing/invoices/${inv.id}/pdf`, owner);
    expect(res.statusCode).toBe(200);
    const { all } = await pdfText(res.rawPayload);
    expect(all).toContain('株式会社サンプル商事御中');
    expect(all).toContain('お振込先');
    expect(all).toContain('みずほ銀行丸の内支店');
    expect(all).toContain('普通7654321');
    expect(all).toContain('ポイクラウド（カ');
    expect(all).toContain(`お客様番号${account.customerNumber}をお振込名義の前にご入力ください`);
    expect(all).toContain('振込手数料はお客様ご負担');
    const [row] = await ctx.query<{ due: string }>(`SELECT to_char(due_date, 'FMYYYY"年"FMMM"月"FMDD"日"') AS due FROM invoices WHERE id = $1`, [inv.id]);
    expect(all).toContain(`お支払期限:${row!.due}`);
    expect(all).toContain(`過入金残高の充当-${yen(1_000)}`);
    expect(all).toContain(`ご請求金額${yen(inv.totalYen - 1_000)}`);

    // A transfer account snapshotted at issue is printed, never today's configuration.
    const snapshotted = await issueInvoice(account, {
      method: 'bank_transfer',
      issuer: { ...ISSUER, bank: { name: '三井住友銀行', branch: '本店営業部', account_type: '当座', account_number: '1111111', holder: 'ポイクラウド' } },
    });
    const text = (await pdfText((await get(`/billing/invoices/${snapshotted.id}/pdf`, owner)).rawPayload)).all;
    expect(text).toContain('三井住友銀行本店営業部');
    expect(text).toContain('当座1111111');
    expect(text).not.toContain('みずほ銀行');
  });

  it('flows 80 lines over several pages, every line and the totals present', async () => {
    const user = await actor();
    const account = await individualAccount(user, '多行 太郎');
    const lines = Array.from({ length: 80 }, (_, i) => ({ description: `データセット${String(i + 1).padStart(2, '0')}番の検索`, quantity: 1_000 + i, unitPriceSen: 150 + i }));
    const inv = await issueInvoice(account, { lines });
    const res = await get(`/billing/invoices/${inv.id}/pdf`, user);
    expect(res.statusCode).toBe(200);
    const { pages, all } = await pdfText(res.rawPayload);
    expect(pages.length).toBeGreaterThanOrEqual(3);
    for (const l of lines) expect(all).toContain(l.description);
    // The table header is repeated on every page of lines, the page count on each.
    for (const [i, page] of pages.entries()) expect(page).toContain(`${i + 1}/${pages.length}`);
    expect(pages[1]).toContain('品目数量単価金額');
    expect(pages.at(-1)).toContain(`合計（税込）${yen(inv.totalYen)}`);
  });

  it('is only for the invoice’s own customer: 404 for others, 401 without a session, 404 for a draft, 403 for a plain corporate member', async () => {
    const owner = await actor();
    const account = await individualAccount(owner, '所有 者');
    const inv = await issueInvoice(account);
    const stranger = await actor();
    await individualAccount(stranger, '他人 です');
    expect((await get(`/billing/invoices/${inv.id}/pdf`, stranger)).statusCode).toBe(404);
    expect((await get(`/billing/invoices/${inv.id}/pdf`)).statusCode).toBe(401);
    expect((await get(`/billing/invoices/${randomUUID()}/pdf`, owner)).statusCode).toBe(404);
    expect((await get(`/billing/invoices/not-a-uuid/pdf`, owner)).statusCode).toBe(400);
    const draft = await issueInvoice(account, { issue: false });
    expect((await get(`/billing/invoices/${draft.id}/pdf`, owner)).statusCode).toBe(404);
    expect((await get(`/billing/invoices/${draft.id}/pdf`, admin)).statusCode).toBe(404);

    const corpOwner = await actor();
    const member = await actor();
    const corp = await corporateAccount(corpOwner, '株式会社メンバー', 'owner', [member]);
    const corpInvoice = await issueInvoice(corp, { method: 'bank_transfer' });
    expect((await get(`/billing/invoices/${corpInvoice.id}/pdf`, corpOwner)).statusCode).toBe(200);
    expect((await get(`/billing/invoices/${corpInvoice.id}/pdf`, member)).statusCode).toBe(403);
    expect((await get(`/billing/invoices/${corpInvoice.id}/pdf`, owner)).statusCode).toBe(404);
  });

  it('warns when a render differs from the SHA-256 kept at the first one', async () => {
    const user = await actor();
    const account = await individualAccount(user, '検証 用');
    const inv = await issueInvoice(account);
    await ctx.query(`UPDATE invoices SET pdf_sha256 = $1 WHERE id = $2`, ['0'.repeat(64), inv.id]);
    expect((await get(`/billing/invoices/${inv.id}/pdf`, user)).statusCode).toBe(200);
    const warned = log.find('invoice PDF differs from its first render');
    expect(warned.some((l) => l.invoice === inv.number)).toBe(true);
  });
});

describe('receipt PDF', () => {
  it('is the 領収書 of one payment: number, recipient, amount, 但し書き, date, issuer and method', async () => {
    const user = await actor();
    const account = await individualAccount(user, '領収 花子');
    const inv = await issueInvoice(account);
    const payment = await addPayment(inv, account, 'card', '2026-06-20');
    const res = await get(`/billing/payments/${payment.id}/receipt.pdf`, user);
    expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toContain(`filename="${payment.receiptNumber}.pdf"`);
    expect(res.headers['cache-control']).toContain('no-store');
    const { all } = await pdfText(res.rawPayload);
    expect(all).toContain('領収書');
    expect(all).toContain(`領収書番号${payment.receiptNumber}`);
    expect(all).toContain('領収花子様');
    expect(all).toContain(`${yen(inv.totalYen)}-`);
    expect(all).toContain(`但しPOICloud利用料（請求書番号${inv.number}）として`);
    expect(all).toContain('受領日2026年6月20日');
    expect(all).toContain('お支払方法クレジットカード');
    expect(all).toContain(`うち消費税${yen(inv.taxYen)}`);
    expect(all).toContain(`登録番号${REGISTRATION}`);

    const again = await get(`/billing/payments/${payment.id}/receipt.pdf`, user);
    expect(sha256(again.rawPayload)).toBe(sha256(res.rawPayload));
  });

  it('is only for the payment’s own customer', async () => {
    const owner = await actor();
    const account = await corporateAccount(owner, '株式会社領収');
    const inv = await issueInvoice(account, { method: 'bank_transfer' });
    const payment = await addPayment(inv, account, 'bank_transfer', '2026-07-10');
    const ok = await get(`/billing/payments/${payment.id}/receipt.pdf`, owner);
    expect(ok.statusCode).toBe(200);
    expect((await pdfText(ok.rawPayload)).all).toContain('お支払方法銀行振込');
    const stranger = await actor();
    expect((await get(`/billing/payments/${payment.id}/receipt.pdf`, stranger)).statusCode).toBe(404);
    expect((await get(`/billing/payments/${payment.id}/receipt.pdf`)).statusCode).toBe(401);
    expect((await get(`/billing/payments/${randomUUID()}/receipt.pdf`, owner)).statusCode).toBe(404);
    expect((await get(`/billing/payments/${payment.id}/receipt.pdf`, admin)).statusCode).toBe(200);
  });
});
