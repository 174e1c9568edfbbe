import { OTP_TTL_MINUTES } from '@poi/shared/limits';
import { messages } from '@poi/shared/messages';
import type { MailMessage } from '../../plugins/mail';

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The one sign-in mail: the code, the link and the expiry, in text and HTML. */
export function buildSignInMail(to: string, code: string, link: string): MailMessage {
  const text = [
    'POI Cloud をご利用いただきありがとうございます。',
    '',
    `認証コード: ${code}`,
    '',
    'ログイン画面に上記の6桁のコードを入力するか、次のリンクを開いてログインしてください。',
    link,
    '',
    `このコードとリンクの有効期限は${OTP_TTL_MINUTES}分です。一度使用すると無効になります。`,
    'このメールに心当たりがない場合は、何もせずに破棄してください。',
    '',
    '— POI Cloud',
  ].join('\n');
  const html = `<!doctype html><html lang="ja"><body style="font-family:sans-serif;color:#111827">
<p>POI Cloud をご利用いただきありがとうございます。</p>
<p>認証コード:</p>
<p style="font-size:28px;font-weight:bold;letter-spacing:6px">${escapeHtml(code)}</p>
<p>ログイン画面に上記の6桁のコードを入力するか、次のボタンからログインしてください。</p>
<p><a href="${escapeHtml(link)}" style="display:inline-block;padding:10px 20px;background:#1d4ed8;color:#fff;text-decoration:none;border-radius:6px">ワンクリックでログイン</a></p>
<p style="font-size:12px;color:#4b5563">リンクが開けない場合: ${escapeHtml(link)}</p>
<p>このコードとリンクの有効期限は${OTP_TTL_MINUTES}分です。一度使用すると無効になります。</p>
<p style="font-size:12px;color:#4b5563">このメールに心当たりがない場合は、何もせずに破棄してください。</p>
</body></html>`;
  return { to, subject: messages.mailSubject, text, html, logSummary: `code ${code} — link ${link}` };
}
