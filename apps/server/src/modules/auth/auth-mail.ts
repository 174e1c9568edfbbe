import { OTP_TTL_MINUTES } from '@poi/shared/limits';
import { messages } from '@poi/shared/messages';
import { button, codeBlock, linkFallback, mailHtml, paragraph } from '../../lib/mail-layout';
import type { MailMessage } from '../../plugins/mail';

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
  const html = mailHtml([
    paragraph('POI Cloud をご利用いただきありがとうございます。'),
    paragraph('認証コード:'),
    codeBlock(code),
    paragraph('ログイン画面に上記の6桁のコードを入力するか、次のボタンからログインしてください。'),
    button('ワンクリックでログイン', link),
    linkFallback(link),
    paragraph(`このコードとリンクの有効期限は${OTP_TTL_MINUTES}分です。一度使用すると無効になります。`),
    paragraph('このメールに心当たりがない場合は、何もせずに破棄してください。', { muted: true }),
  ]);
  return { to, subject: messages.mailSubject, text, html, logSummary: `code ${code} — link ${link}` };
}
