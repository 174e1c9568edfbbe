import { formatYenAmount } from '@poi/shared/format';
import type { CreditNoteRow, InvoiceRow } from './invoices.mapper';
import {
  COLOR,
  CONTENT_WIDTH,
  MARGIN,
  PAGE,
  documentDate,
  drawIssuer,
  drawRecipient,
  finish,
  footers,
  formatDateJa,
  issuerOf,
  newDocument,
  recipientOf,
  registrationNumberOf,
  rule,
  text,
} from './invoice-pdf';

/*
 * The credit note (適格返還請求書) PDF, drawn with invoice-pdf.ts's building blocks. Everything
 * printed comes from the credit note's own frozen columns and snapshots and the original invoice's
 * number and period (immutable once issued), so every render gives the same bytes.
 */

interface CreditNotePdfView {
  note: Pick<
    CreditNoteRow,
    'number' | 'issueDate' | 'amountYen' | 'subtotalYen' | 'taxYen' | 'taxRateBp' | 'appliedToInvoiceYen' | 'creditedToAccountYen' | 'description' | 'reason' | 'issuerSnapshot' | 'recipientSnapshot'
  >;
  invoice: Pick<InvoiceRow, 'number' | 'issueDate' | 'periodStart' | 'periodEnd'>;
}

/** 「適格返還請求書」 with a valid registration number on the snapshot, else 「返還請求書」 (as 請求書 does). */
function creditNoteTitle(issuerSnapshot: unknown): string {
  return registrationNumberOf(issuerSnapshot) ? '適格返還請求書' : '返還請求書';
}

/**
 * The required items of a 適格返還請求書: the issuer and its registration number, the credit
 * note's issue date, the original invoice (number, transaction period and issue date), what is
 * returned, the amount returned excluding tax per rate with the rate, the tax, and the recipient.
 */
export async function renderCreditNotePdf(view: CreditNotePdfView): Promise<Buffer> {
  const { note, invoice } = view;
  const issuer = issuerOf(note.issuerSnapshot);
  const recipient = recipientOf(note.recipientSnapshot);
  const title = creditNoteTitle(issuer);
  const rate = `${note.taxRateBp / 100}%`;
  const period = `${formatDateJa(invoice.periodStart)}〜${formatDateJa(invoice.periodEnd)}`;
  const doc = newDocument({
    title: `${title} ${note.number}`,
    author: issuer.name?.trim() || 'POI Cloud',
    subject: `請求書番号 ${invoice.number ?? ''} に対する返還`,
    date: documentDate(note.issueDate),
  });

  let y = 44;
  text(doc, title, MARGIN, y, { size: 20, bold: true, align: 'center' });
  y += 34;
  rule(doc, MARGIN, y, PAGE.width - MARGIN, COLOR.accent, 1.6);
  y += 12;

  const rightX = MARGIN + CONTENT_WIDTH * 0.58;
  const rightW = PAGE.width - MARGIN - rightX;
  const leftW = CONTENT_WIDTH * 0.52;
  let ry = y;
  const meta: Array<[string, string]> = [
    ['返還請求書番号', note.number],
    ['発行日', formatDateJa(note.issueDate)],
    ['お客様番号', recipient.customer_number ?? ''],
  ];
  for (const [label, value] of meta) {
    text(doc, label, rightX, ry, { size: 8.5, color: COLOR.muted, width: 80 });
    text(doc, value, rightX + 80, ry, { size: 9, width: rightW - 80, align: 'right' });
    ry += 14;
  }
  ry += 10;
  ry += drawIssuer(doc, issuer, rightX, ry, rightW);

  let ly = y + drawRecipient(doc, recipient, MARGIN, y, leftW) + 8;
  ly += text(doc, '下記のとおりご返還いたします。', MARGIN, ly, { size: 9, width: leftW }) + 8;
  const boxH = 40;
  doc.rect(MARGIN, ly, 92, boxH).fill(COLOR.head);
  doc.rect(MARGIN, ly, leftW, boxH).lineWidth(1).strokeColor(COLOR.accent).stroke();
  text(doc, 'ご返還金額', MARGIN + 8, ly + 8, { size: 9.5, bold: true, width: 80 });
  text(doc, '（税込）', MARGIN + 8, ly + 22, { size: 7.5, color: COLOR.muted, width: 80 });
  text(doc, `${formatYenAmount(note.amountYen)}-`, MARGIN + 96, ly + 9, { size: 17, bold: true, width: leftW - 106, align: 'right' });
  ly += boxH + 10;

  const original: Array<[string, string]> = [
    ['対象の請求書', invoice.number ?? ''],
    ['取引期間', period],
    ['請求書発行日', formatDateJa(invoice.issueDate)],
  ];
  for (const [label, value] of original) {
    text(doc, label, MARGIN, ly, { size: 8.5, color: COLOR.muted, width: 78 });
    ly += Math.max(13, text(doc, value, MARGIN + 78, ly, { size: 9, width: leftW - 78 }) + 2);
  }
  y = Math.max(ly, ry) + 16;

  // What is returned: one row, excluding tax, at its rate.
  doc.rect(MARGIN, y, CONTENT_WIDTH, 20).fill(COLOR.head);
  text(doc, '返還の内容', MARGIN + 6, y + 5, { size: 8.5, bold: true, width: CONTENT_WIDTH - 200 });
  text(doc, '税率', MARGIN + CONTENT_WIDTH - 190, y + 5, { size: 8.5, bold: true, width: 60, align: 'right' });
  text(doc, '金額（税抜）', MARGIN + CONTENT_WIDTH - 124, y + 5, { size: 8.5, bold: true, width: 118, align: 'right' });
  y += 20;
  const descH = text(doc, note.description, MARGIN + 6, y + 5, { size: 9, width: CONTENT_WIDTH - 200 });
  text(doc, rate, MARGIN + CONTENT_WIDTH - 190, y + 5, { size: 9, width: 60, align: 'right' });
  text(doc, formatYenAmount(note.subtotalYen), MARGIN + CONTENT_WIDTH - 124, y + 5, { size: 9, width: 118, align: 'right' });
  y += Math.max(20, descH + 9);
  rule(doc, MARGIN, y, MARGIN + CONTENT_WIDTH);
  y += 8;

  const totals: Array<{ label: string; value: string; strong?: boolean }> = [
    { label: `${rate}対象 返還額（税抜）`, value: formatYenAmount(note.subtotalYen) },
    { label: `消費税（${rate}）`, value: formatYenAmount(note.taxYen) },
    { label: '返還額合計（税込）', value: formatYenAmount(note.amountYen), strong: true },
  ];
  const tx = MARGIN + CONTENT_WIDTH - 260;
  for (const row of totals) {
    if (row.strong) doc.rect(tx, y, 260, 20).fill(COLOR.head);
    text(doc, row.label, tx + 8, y + 5, { size: 9, bold: row.strong, width: 150 });
    text(doc, row.value, tx + 120, y + 5, { size: row.strong ? 10 : 9, bold: row.strong, width: 132, align: 'right' });
    y += 20;
    rule(doc, tx, y, tx + 260);
  }
  y += 6;
  text(doc, '※ 消費税額は返還額（税込）に含まれる額を、請求書ごとの累計で1円未満を切り捨てて計算しています。', MARGIN, y, { size: 7.5, color: COLOR.muted });
  y += 22;

  text(doc, '返還の方法', MARGIN, y, { size: 9, bold: true });
  y += 14;
  if (note.appliedToInvoiceYen > 0) y += text(doc, `ご請求金額からの差し引き: ${formatYenAmount(note.appliedToInvoiceYen)}`, MARGIN, y, { size: 8.5 }) + 2;
  if (note.creditedToAccountYen > 0) y += text(doc, `クレジットとしてお預かり（次回以降のご請求に充当）: ${formatYenAmount(note.creditedToAccountYen)}`, MARGIN, y, { size: 8.5 }) + 2;
  y += 10;
  text(doc, '理由', MARGIN, y, { size: 9, bold: true });
  y += 14;
  text(doc, note.reason, MARGIN, y, { size: 8.5, width: CONTENT_WIDTH });

  footers(doc, `${title}\u3000${note.number}`);
  return finish(doc);
}
