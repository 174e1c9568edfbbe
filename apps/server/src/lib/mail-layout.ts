/*
 * The HTML part of every mail the server sends: one frame and a few blocks, so the mail files hold
 * only their texts. Mail clients ignore stylesheets, hence inline styles. Everything interpolated
 * goes through escapeHtml; the blocks escape their own text.
 */

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);

const MUTED = 'font-size:12px;color:#4b5563';
const BUTTON = 'display:inline-block;padding:10px 20px;background:#1d4ed8;color:#fff;text-decoration:none;border-radius:6px';

/** The document around the blocks, one block per line. An empty block leaves an empty line. */
export function mailHtml(blocks: readonly string[]): string {
  return `<!doctype html><html lang="ja"><body style="font-family:sans-serif;color:#111827">\n${blocks.join('\n')}\n</body></html>`;
}

/** A paragraph; several lines are kept together with <br>. `muted` is the small grey print. */
export function paragraph(lines: string | readonly string[], options: { muted?: boolean } = {}): string {
  const text = (typeof lines === 'string' ? [lines] : lines).map(escapeHtml).join('<br>');
  return options.muted ? `<p style="${MUTED}">${text}</p>` : `<p>${text}</p>`;
}

/** One paragraph per text. */
export const paragraphs = (texts: readonly string[]): string[] => texts.map((t) => paragraph(t));

/** A one-time code, large and spaced so it is read (and typed) without error. */
export const codeBlock = (code: string): string => `<p style="font-size:28px;font-weight:bold;letter-spacing:6px">${escapeHtml(code)}</p>`;

/** The call to action: a link drawn as a button. */
export const button = (label: string, url: string): string => `<p><a href="${escapeHtml(url)}" style="${BUTTON}">${escapeHtml(label)}</a></p>`;

/** The button's address in plain text, for clients that do not open it. */
export const linkFallback = (url: string): string => paragraph(`リンクが開けない場合: ${url}`, { muted: true });

/** A bare link showing its own address. */
export const plainLink = (url: string): string => `<p><a href="${escapeHtml(url)}">${escapeHtml(url)}</a></p>`;

/** Label / value rows on one line, labels as row headers (invoice numbers, dates, amounts). */
export function detailsTable(rows: ReadonlyArray<readonly [string, string]>): string {
  const body = rows.map(([k, v]) => `<tr><th style="text-align:left;padding:4px 12px 4px 0">${escapeHtml(k)}</th><td style="padding:4px 0">${escapeHtml(v)}</td></tr>`).join('');
  return `<table style="border-collapse:collapse">${body}</table>`;
}

/** Label / amount rows, one per line, amounts aligned right. */
export function amountsTable(rows: ReadonlyArray<readonly [string, string]>): string {
  const body = rows.map(([k, v]) => `<tr><td style="padding:4px 12px 4px 0">${escapeHtml(k)}</td><td style="padding:4px 0;text-align:right">${escapeHtml(v)}</td></tr>`);
  return ['<table style="border-collapse:collapse">', ...body, '</table>'].join('\n');
}

/**
 * A notice mail: greeting, paragraphs, a details table (`label: value` lines in the text part) and
 * one link, signed 「— POI Cloud」. The text and HTML parts say the same.
 */
export function noticeMail(subject: string, greeting: string, texts: string[], rows: Array<[string, string]>, link: string): { subject: string; text: string; html: string } {
  const text = [greeting, '', ...texts, '', ...rows.map(([k, v]) => `${k}: ${v}`), '', link, '', '— POI Cloud'].join('\n');
  const html = mailHtml([paragraph(greeting), paragraphs(texts).join('\n'), detailsTable(rows), plainLink(link), paragraph('— POI Cloud')]);
  return { subject, text, html };
}
