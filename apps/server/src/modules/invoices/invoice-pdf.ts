import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import PDFDocument from 'pdfkit';
import { formatUnitPriceSen, formatYenAmount } from '@poi/shared/format';
import type { invoiceLines } from '../../db/schema/invoices';
import { bankSnapshot, type BankSnapshot } from '../billing-accounts/bank-transfer';
import type { InvoiceRow, PaymentRow } from './invoices.mapper';

export { bankSnapshot, type BankSnapshot };

/*
 * The invoice (適格請求書) and receipt (領収書) PDFs, drawn with pdfkit in Noto Sans JP.
 * Everything printed comes from the arguments, which for an issued invoice are its frozen columns
 * and snapshots: the same invoice gives the same bytes every time (fixed dates and document ID),
 * so its SHA-256 can be kept and checked (docs/billing.md "Required content and documents").
 */

export type InvoiceLineRow = typeof invoiceLines.$inferSelect;

/** The issuer as snapshotted on the invoice (snake_case, as the monthly close writes it). */
export interface IssuerSnapshot {
  name?: string | null;
  representative?: string | null;
  address?: string | null;
  phone?: string | null;
  phone_hours?: string | null;
  email?: string | null;
  registration_number?: string | null;
  /** Where bank transfers go, as at issue (`bankSnapshot`); without it the caller passes `bank`. */
  bank?: BankSnapshot | null;
}


export interface RecipientSnapshot {
  kind?: 'individual' | 'corporate';
  addressee?: string | null;
  honorific?: string | null;
  postal_code?: string | null;
  address?: string | null;
  customer_number?: string | null;
}

/** config.bank as the issuer snapshot keeps it, so a later change of account never alters an issued invoice. */

function bankOf(snapshot: BankSnapshot | null | undefined, fallback: BankAccount | null | undefined): BankSnapshot | null {
  return snapshot?.name && snapshot.account_number ? snapshot : bankSnapshot(fallback);
}

/** config.bank's shape. */
export interface BankAccount {
  name: string;
  branch: string;
  accountType: string;
  accountNumber: string;
  holder: string;
}

export interface InvoicePdfView {
  invoice: Pick<
    InvoiceRow,
    'number' | 'yearMonth' | 'issueDate' | 'dueDate' | 'periodStart' | 'periodEnd' | 'subtotalYen' | 'taxYen' | 'totalYen' | 'creditAppliedYen' | 'paymentMethod' | 'issuerSnapshot' | 'recipientSnapshot'
  >;
  lines: Array<Pick<InvoiceLineRow, 'position' | 'description' | 'quantity' | 'unitPriceSen' | 'amountYen' | 'taxRateBp'>>;
  /** The transfer account for a bank-transfer invoice when the issuer snapshot has none. */
  bank?: BankAccount | null;
  /**
   * A void invoice is served with a 「無効」 stamp, its date and reason over the issued document.
   * Without it the bytes are the issued original's (whose SHA-256 is stored).
   */
  voided?: { on: string; reason: string } | null;
}

export interface ReceiptPdfView {
  payment: Pick<PaymentRow, 'receiptNumber' | 'method' | 'amountYen' | 'receivedOn'>;
  invoice: Pick<InvoiceRow, 'number' | 'totalYen' | 'taxYen' | 'creditAppliedYen' | 'issuerSnapshot' | 'recipientSnapshot'>;
}

/** 適格請求書発行事業者の登録番号: T and the 13-digit corporate (or assigned) number. */
export const REGISTRATION_NUMBER = /^T[1-9]\d{12}$/;

export const sha256Hex = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

// ------------------------------------------------------------------ formatting

const integerFormat = new Intl.NumberFormat('ja-JP', { maximumFractionDigits: 0 });

export const formatCount = (n: number): string => integerFormat.format(n);

/** '2026-05-01' → '2026年5月1日'. */
export function formatDateJa(day: string | null | undefined): string {
  const m = day ? /^(\d{4})-(\d{2})-(\d{2})/.exec(day) : null;
  return m ? `${m[1]}年${Number(m[2])}月${Number(m[3])}日` : '';
}

/** The PDF's creation date: the document's own date at 00:00 JST, never the time of rendering. */
export function documentDate(day: string | null | undefined): Date {
  const d = day && /^\d{4}-\d{2}-\d{2}$/.test(day) ? new Date(`${day}T00:00:00+09:00`) : new Date(0);
  return Number.isNaN(d.getTime()) ? new Date(0) : d;
}

const METHOD_LABELS: Record<PaymentRow['method'], string> = {
  card: 'クレジットカード',
  bank_transfer: '銀行振込',
  credit: '過入金残高の充当',
};

// ------------------------------------------------------------------ fonts

const requireFromHere = createRequire(import.meta.url);
const FONT_FILES = {
  regular: '@expo-google-fonts/noto-sans-jp/400Regular/NotoSansJP_400Regular.ttf',
  bold: '@expo-google-fonts/noto-sans-jp/700Bold/NotoSansJP_700Bold.ttf',
} as const;
let fonts: { regular: Buffer; bold: Buffer } | undefined;

/**
 * Noto Sans JP (TTF: pdfkit embeds a subset of only the glyphs used). Resolved from node_modules
 * at run time, so the bundled dist/server.js finds it as tsx does; read once per process.
 */
function loadFonts(): { regular: Buffer; bold: Buffer } {
  fonts ??= { regular: readFileSync(requireFromHere.resolve(FONT_FILES.regular)), bold: readFileSync(requireFromHere.resolve(FONT_FILES.bold)) };
  return fonts;
}

// ------------------------------------------------------------------ drawing

export const PAGE = { width: 595.28, height: 841.89 };
export const MARGIN = 48;
export const CONTENT_WIDTH = PAGE.width - MARGIN * 2;
const BOTTOM = PAGE.height - 64;
export const COLOR = { text: '#1f2328', muted: '#5b6470', rule: '#c9ced6', head: '#eef1f5', accent: '#1d4e89' };

type Doc = PDFKit.PDFDocument;

export function newDocument(meta: { title: string; author: string; subject: string; date: Date }): Doc {
  const f = loadFonts();
  const doc = new PDFDocument({
    size: 'A4',
    // Page breaks are placed by the layout below; zero margins keep pdfkit from adding its own.
    margins: { top: 0, bottom: 0, left: 0, right: 0 },
    bufferPages: true,
    lang: 'ja-JP',
    displayTitle: true,
    info: { Title: meta.title, Author: meta.author, Subject: meta.subject, Creator: 'POI Cloud', Producer: 'POI Cloud', CreationDate: meta.date, ModDate: meta.date },
  });
  doc.registerFont('jp', f.regular);
  doc.registerFont('jp-bold', f.bold);
  doc.font('jp').fillColor(COLOR.text);
  return doc;
}

export function finish(doc: Doc): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    doc.end();
  });
}

interface TextOptions {
  size?: number;
  bold?: boolean;
  color?: string;
  align?: 'left' | 'right' | 'center';
  width?: number;
}

/** One line (or a wrapped paragraph when `width` is given); answers the height used. */
export function text(doc: Doc, value: string, x: number, y: number, o: TextOptions = {}): number {
  doc.font(o.bold ? 'jp-bold' : 'jp').fontSize(o.size ?? 9).fillColor(o.color ?? COLOR.text);
  const width = o.width ?? CONTENT_WIDTH;
  doc.text(value, x, y, { width, align: o.align ?? 'left', lineGap: 1 });
  return doc.heightOfString(value, { width, lineGap: 1 });
}

export function rule(doc: Doc, x1: number, y: number, x2: number, color = COLOR.rule, width = 0.6): void {
  doc.moveTo(x1, y).lineTo(x2, y).lineWidth(width).strokeColor(color).stroke();
}

/** Page numbers and the document number on every page (drawn last, when the page count is known). */
export function footers(doc: Doc, label: string): void {
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    rule(doc, MARGIN, PAGE.height - 44, PAGE.width - MARGIN);
    text(doc, label, MARGIN, PAGE.height - 38, { size: 7.5, color: COLOR.muted, width: CONTENT_WIDTH / 2 });
    text(doc, `${i - range.start + 1} / ${range.count}`, PAGE.width / 2, PAGE.height - 38, { size: 7.5, color: COLOR.muted, width: CONTENT_WIDTH / 2, align: 'right' });
  }
}

export function issuerOf(snapshot: unknown): IssuerSnapshot {
  return (snapshot ?? {}) as IssuerSnapshot;
}

export function recipientOf(snapshot: unknown): RecipientSnapshot {
  return (snapshot ?? {}) as RecipientSnapshot;
}

/** The registration number when it is a valid one, else null (the invoice is then a plain 請求書). */
export function registrationNumberOf(issuerSnapshot: unknown): string | null {
  const value = issuerOf(issuerSnapshot).registration_number?.trim();
  return value && REGISTRATION_NUMBER.test(value) ? value : null;
}

export function invoiceTitle(issuerSnapshot: unknown): string {
  return registrationNumberOf(issuerSnapshot) ? '請求書（適格請求書）' : '請求書';
}

/** The issuer's block (right column): name, address, contact, registration number. */
export function drawIssuer(doc: Doc, issuer: IssuerSnapshot, x: number, y: number, width: number): number {
  const start = y;
  y += text(doc, issuer.name?.trim() || 'POI Cloud', x, y, { size: 11, bold: true, width }) + 2;
  if (issuer.address) y += text(doc, issuer.address, x, y, { size: 8.5, width });
  if (issuer.phone) y += text(doc, `TEL ${issuer.phone}${issuer.phone_hours ? `（${issuer.phone_hours}）` : ''}`, x, y, { size: 8.5, width });
  if (issuer.email) y += text(doc, issuer.email, x, y, { size: 8.5, width });
  const registration = registrationNumberOf(issuer);
  if (registration) y += text(doc, `登録番号 ${registration}`, x, y + 2, { size: 9, bold: true, width }) + 2;
  return y - start;
}

/** 宛名 + 敬称 underlined, with postal code and address above it. */
export function drawRecipient(doc: Doc, recipient: RecipientSnapshot, x: number, y: number, width: number): number {
  const start = y;
  if (recipient.postal_code) y += text(doc, `〒${recipient.postal_code}`, x, y, { size: 8.5, width });
  if (recipient.address) y += text(doc, recipient.address, x, y, { size: 8.5, width });
  y += 6;
  const name = `${recipient.addressee?.trim() || ''}\u3000${recipient.honorific ?? ''}`.trim();
  const h = text(doc, name, x, y, { size: 14, bold: true, width });
  y += h + 3;
  rule(doc, x, y, x + width, COLOR.text, 0.9);
  return y + 4 - start;
}

// ------------------------------------------------------------------ invoice

const COLUMNS = [
  { key: 'no', title: 'No.', width: 30, align: 'center' },
  { key: 'description', title: '品目', width: 0, align: 'left' },
  { key: 'quantity', title: '数量', width: 70, align: 'right' },
  { key: 'unit', title: '単価', width: 82, align: 'right' },
  { key: 'amount', title: '金額', width: 88, align: 'right' },
] as const;
const DESCRIPTION_WIDTH = CONTENT_WIDTH - COLUMNS.reduce((s, c) => s + c.width, 0);
const CELL_PAD = 5;

function columnX(index: number): number {
  let x = MARGIN;
  for (let i = 0; i < index; i++) x += COLUMNS[i]!.width || DESCRIPTION_WIDTH;
  return x;
}

function drawTableHeader(doc: Doc, y: number): number {
  const h = 20;
  doc.rect(MARGIN, y, CONTENT_WIDTH, h).fill(COLOR.head);
  COLUMNS.forEach((c, i) => {
    const w = c.width || DESCRIPTION_WIDTH;
    text(doc, c.title, columnX(i) + CELL_PAD, y + 5, { size: 8.5, bold: true, width: w - CELL_PAD * 2, align: c.align });
  });
  rule(doc, MARGIN, y + h, MARGIN + CONTENT_WIDTH, COLOR.muted, 0.8);
  return h;
}

/**
 * 請求書 (with 「（適格請求書）」 when the issuer snapshot has a registration number): the issuer
 * and recipient, number, dates and period, the lines, subtotal, the 10 % tax line, total, credit
 * applied and what is due, and for bank transfer where and how to pay. Lines flow onto further
 * pages with the table header repeated.
 */
export async function renderInvoicePdf(view: InvoicePdfView): Promise<Buffer> {
  const { invoice } = view;
  const issuer = issuerOf(invoice.issuerSnapshot);
  const recipient = recipientOf(invoice.recipientSnapshot);
  const title = invoiceTitle(issuer);
  const number = invoice.number ?? '';
  const doc = newDocument({
    title: `${title} ${number}`.trim(),
    author: issuer.name?.trim() || 'POI Cloud',
    subject: `POI Cloud 利用料 ${formatDateJa(invoice.periodStart)}〜${formatDateJa(invoice.periodEnd)}`,
    date: documentDate(invoice.issueDate),
  });
  const due = Math.max(0, invoice.totalYen - invoice.creditAppliedYen);

  // Title band.
  let y = 44;
  text(doc, title, MARGIN, y, { size: 20, bold: true, align: 'center' });
  y += 34;
  rule(doc, MARGIN, y, PAGE.width - MARGIN, COLOR.accent, 1.6);
  y += 12;

  // Right: number and dates, then the issuer. Left: the recipient, the greeting and the amount.
  const rightX = MARGIN + CONTENT_WIDTH * 0.58;
  const rightW = PAGE.width - MARGIN - rightX;
  const leftW = CONTENT_WIDTH * 0.52;
  let ry = y;
  const meta: Array<[string, string]> = [
    ['請求書番号', number],
    ['発行日', formatDateJa(invoice.issueDate)],
    ['お客様番号', recipient.customer_number ?? ''],
  ];
  for (const [label, value] of meta) {
    text(doc, label, rightX, ry, { size: 8.5, color: COLOR.muted, width: 70 });
    text(doc, value, rightX + 70, ry, { size: 9, width: rightW - 70, align: 'right' });
    ry += 14;
  }
  ry += 10;
  ry += drawIssuer(doc, issuer, rightX, ry, rightW);

  let ly = y;
  ly += drawRecipient(doc, recipient, MARGIN, ly, leftW);
  ly += 8;
  ly += text(doc, '下記のとおりご請求申し上げます。', MARGIN, ly, { size: 9, width: leftW }) + 8;

  // The amount box: what the customer pays.
  const boxH = 40;
  doc.rect(MARGIN, ly, 92, boxH).fill(COLOR.head);
  doc.rect(MARGIN, ly, leftW, boxH).lineWidth(1).strokeColor(COLOR.accent).stroke();
  text(doc, 'ご請求金額', MARGIN + 8, ly + 8, { size: 9.5, bold: true, width: 80 });
  text(doc, '（税込）', MARGIN + 8, ly + 22, { size: 7.5, color: COLOR.muted, width: 80 });
  text(doc, `${formatYenAmount(due)}-`, MARGIN + 96, ly + 9, { size: 17, bold: true, width: leftW - 106, align: 'right' });
  ly += boxH + 10;

  const terms: Array<[string, string]> = [
    ['対象期間', `${formatDateJa(invoice.periodStart)}〜${formatDateJa(invoice.periodEnd)}`],
    ['お支払期限', invoice.paymentMethod === 'card' ? `${formatDateJa(invoice.dueDate || invoice.issueDate)}（ご登録のクレジットカードで決済）` : formatDateJa(invoice.dueDate)],
    ['お支払方法', METHOD_LABELS[invoice.paymentMethod]],
  ];
  for (const [label, value] of terms) {
    text(doc, label, MARGIN, ly, { size: 8.5, color: COLOR.muted, width: 70 });
    ly += Math.max(13, text(doc, value, MARGIN + 70, ly, { size: 9, width: leftW - 70 }) + 2);
  }

  y = Math.max(ly, ry) + 16;

  // Lines.
  y += drawTableHeader(doc, y);
  const ordered = [...view.lines].sort((a, b) => a.position - b.position);
  ordered.forEach((line, index) => {
    doc.font('jp').fontSize(9);
    const descH = doc.heightOfString(line.description, { width: DESCRIPTION_WIDTH - CELL_PAD * 2, lineGap: 1 });
    const rowH = Math.max(20, descH + 9);
    if (y + rowH > BOTTOM) {
      doc.addPage();
      y = 44;
      text(doc, `${title}\u3000${number}（続き）`, MARGIN, y, { size: 9, bold: true });
      y += 22;
      y += drawTableHeader(doc, y);
    }
    const cells = [String(index + 1), line.description, formatCount(line.quantity), formatUnitPriceSen(line.unitPriceSen), formatYenAmount(line.amountYen)];
    cells.forEach((value, i) => {
      const c = COLUMNS[i]!;
      const w = c.width || DESCRIPTION_WIDTH;
      text(doc, value, columnX(i) + CELL_PAD, y + 5, { size: 9, width: w - CELL_PAD * 2, align: c.align });
    });
    y += rowH;
    rule(doc, MARGIN, y, MARGIN + CONTENT_WIDTH);
  });

  // Totals: subtotal, the amount subject to 10 % with its tax, total, credit and what is due.
  const totals: Array<{ label: string; value: string; strong?: boolean }> = [
    { label: '小計', value: formatYenAmount(invoice.subtotalYen) },
    { label: `10%対象 ${formatYenAmount(invoice.subtotalYen)}`, value: `消費税 ${formatYenAmount(invoice.taxYen)}` },
    { label: '合計（税込）', value: formatYenAmount(invoice.totalYen), strong: invoice.creditAppliedYen === 0 },
  ];
  if (invoice.creditAppliedYen > 0) {
    totals.push({ label: '過入金残高の充当', value: formatYenAmount(-invoice.creditAppliedYen) });
    totals.push({ label: 'ご請求金額', value: formatYenAmount(due), strong: true });
  }
  const totalsH = totals.length * 20 + 12;
  const notesH = invoice.paymentMethod === 'bank_transfer' ? 150 : 60;
  if (y + 8 + totalsH + notesH > BOTTOM) {
    doc.addPage();
    y = 44;
    text(doc, `${title}\u3000${number}（続き）`, MARGIN, y, { size: 9, bold: true });
    y += 22;
  } else {
    y += 8;
  }
  const tx = MARGIN + CONTENT_WIDTH - 250;
  for (const row of totals) {
    if (row.strong) doc.rect(tx, y, 250, 20).fill(COLOR.head);
    text(doc, row.label, tx + 8, y + 5, { size: 9, bold: row.strong, width: 140 });
    text(doc, row.value, tx + 110, y + 5, { size: row.strong ? 10 : 9, bold: row.strong, width: 132, align: 'right' });
    y += 20;
    rule(doc, tx, y, tx + 250);
  }
  y += 4;
  text(doc, '※ 消費税は請求書ごとに税率別の合計額から計算し、1円未満を切り捨てています。', MARGIN, y, { size: 7.5, color: COLOR.muted });
  y += 18;

  if (invoice.paymentMethod === 'bank_transfer') {
    y = drawBankTransfer(doc, y, bankOf(issuer.bank, view.bank), recipient.customer_number ?? '', invoice.dueDate);
  } else {
    text(doc, '備考', MARGIN, y, { size: 9, bold: true });
    y += 14;
    text(doc, 'ご請求金額は、ご登録のクレジットカードにて請求書の発行時に決済いたします。', MARGIN, y, { size: 8.5 });
  }

  if (view.voided) drawVoidStamp(doc, view.voided);
  footers(doc, `${title}\u3000${number}`);
  return finish(doc);
}

/** On every page: a large 「無効」 stamp and, above the title, the void date and reason. */
function drawVoidStamp(doc: Doc, voided: { on: string; reason: string }): void {
  const range = doc.bufferedPageRange();
  const red = '#b42318';
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    doc.font('jp-bold').fontSize(8).fillColor(red);
    doc.text(`この請求書は無効です（無効日 ${formatDateJa(voided.on)}\u3000理由: ${voided.reason}）`, MARGIN, 16, { width: CONTENT_WIDTH, height: 22, ellipsis: true, lineGap: 1 });
    // In the blank right of the terms on the first page, clear of the issuer block and amounts.
    doc.save();
    doc.opacity(0.85);
    doc.rotate(-15, { origin: [PAGE.width - MARGIN - 90, 250] });
    doc.rect(PAGE.width - MARGIN - 160, 218, 140, 64).lineWidth(3).strokeColor(red).stroke();
    doc.font('jp-bold').fontSize(38).fillColor(red).text('無効', PAGE.width - MARGIN - 160, 226, { width: 140, align: 'center', lineBreak: false });
    doc.restore();
  }
}

/** お振込先, the お客様番号 to type before the payer name, the due date, fees borne by the customer. */
function drawBankTransfer(doc: Doc, y: number, bank: BankSnapshot | null, customerNumber: string, dueDate: string | null): number {
  const x = MARGIN;
  const boxTop = y;
  const innerX = x + 12;
  const innerW = CONTENT_WIDTH - 24;
  y += 10;
  text(doc, 'お振込先', innerX, y, { size: 10, bold: true, width: innerW });
  y += 18;
  if (bank) {
    const rows: Array<[string, string]> = [
      ['金融機関', `${bank.name}\u3000${bank.branch}`],
      ['口座', `${bank.account_type}\u3000${bank.account_number}`],
      ['口座名義', bank.holder],
    ];
    for (const [label, value] of rows) {
      text(doc, label, innerX, y, { size: 8.5, color: COLOR.muted, width: 70 });
      text(doc, value, innerX + 70, y, { size: 9.5, width: innerW - 70 });
      y += 15;
    }
  } else {
    y += text(doc, 'お振込先は別途ご案内いたします。', innerX, y, { size: 9, width: innerW }) + 2;
  }
  y += 4;
  y += text(doc, `お客様番号 ${customerNumber} をお振込名義の前にご入力ください（例: ${customerNumber} ヤマダタロウ）。`, innerX, y, { size: 9, bold: true, width: innerW }) + 3;
  y += text(doc, `お支払期限: ${formatDateJa(dueDate)}までにお振込みください。`, innerX, y, { size: 9, width: innerW }) + 3;
  y += text(doc, '振込手数料はお客様ご負担にてお願いいたします。', innerX, y, { size: 9, width: innerW }) + 8;
  doc.rect(x, boxTop, CONTENT_WIDTH, y - boxTop).lineWidth(0.8).strokeColor(COLOR.accent).stroke();
  return y + 10;
}

// ------------------------------------------------------------------ receipt

/**
 * 領収書 for one payment: number, recipient, 「¥X-」, 但し POI Cloud 利用料 (請求書番号 …), the date
 * received, how it was paid, and the issuer with its registration number.
 */
export async function renderReceiptPdf(view: ReceiptPdfView): Promise<Buffer> {
  const { payment, invoice } = view;
  const issuer = issuerOf(invoice.issuerSnapshot);
  const recipient = recipientOf(invoice.recipientSnapshot);
  const doc = newDocument({
    title: `領収書 ${payment.receiptNumber}`,
    author: issuer.name?.trim() || 'POI Cloud',
    subject: `POI Cloud 利用料（請求書番号 ${invoice.number ?? ''}）`,
    date: documentDate(payment.receivedOn),
  });

  let y = 52;
  text(doc, '領\u3000収\u3000書', MARGIN, y, { size: 24, bold: true, align: 'center' });
  y += 40;
  rule(doc, MARGIN, y, PAGE.width - MARGIN, COLOR.accent, 1.6);
  y += 14;

  const rightX = MARGIN + CONTENT_WIDTH * 0.6;
  const rightW = PAGE.width - MARGIN - rightX;
  const meta: Array<[string, string]> = [
    ['領収書番号', payment.receiptNumber],
    ['受領日', formatDateJa(payment.receivedOn)],
    ['お客様番号', recipient.customer_number ?? ''],
  ];
  let ry = y;
  for (const [label, value] of meta) {
    text(doc, label, rightX, ry, { size: 8.5, color: COLOR.muted, width: 70 });
    text(doc, value, rightX + 70, ry, { size: 9, width: rightW - 70, align: 'right' });
    ry += 14;
  }
  const ly = y + drawRecipient(doc, recipient, MARGIN, y + 6, CONTENT_WIDTH * 0.52) + 6;
  y = Math.max(ly, ry) + 22;

  // The amount, centred in its box.
  const boxW = 340;
  const boxX = (PAGE.width - boxW) / 2;
  doc.rect(boxX, y, boxW, 54).fill(COLOR.head);
  doc.rect(boxX, y, boxW, 54).lineWidth(1).strokeColor(COLOR.accent).stroke();
  text(doc, '金額', boxX + 14, y + 19, { size: 10, bold: true, width: 60 });
  text(doc, `${formatYenAmount(payment.amountYen)}-`, boxX + 60, y + 13, { size: 22, bold: true, width: boxW - 80, align: 'center' });
  y += 70;

  text(doc, `但し POI Cloud 利用料（請求書番号 ${invoice.number ?? ''}）として`, MARGIN, y, { size: 10.5, align: 'center' });
  y += 20;
  text(doc, '上記正に領収いたしました。', MARGIN, y, { size: 10.5, align: 'center' });
  y += 34;

  const details: Array<[string, string]> = [['お支払方法', METHOD_LABELS[payment.method]]];
  // The tax breakdown is exact only when the payment settles the whole invoice at once.
  if (payment.amountYen === invoice.totalYen - invoice.creditAppliedYen && invoice.creditAppliedYen === 0) {
    details.push(['内訳', `10%対象 ${formatYenAmount(invoice.totalYen)}（うち消費税 ${formatYenAmount(invoice.taxYen)}）`]);
  } else {
    details.push(['内訳', '税込金額（消費税率10%）']);
  }
  const dx = MARGIN + 40;
  for (const [label, value] of details) {
    text(doc, label, dx, y, { size: 9, color: COLOR.muted, width: 80 });
    text(doc, value, dx + 80, y, { size: 9.5, width: CONTENT_WIDTH - 120 });
    y += 17;
    rule(doc, dx, y - 3, PAGE.width - MARGIN - 40);
  }
  y += 30;

  const ix = MARGIN + CONTENT_WIDTH * 0.55;
  drawIssuer(doc, issuer, ix, y, PAGE.width - MARGIN - ix);
  y += 110;
  text(doc, '本領収書は電子的に発行したものです（収入印紙は不要です）。', MARGIN, y, { size: 7.5, color: COLOR.muted });

  footers(doc, `領収書\u3000${payment.receiptNumber}`);
  return finish(doc);
}
