import fs from 'node:fs';
import path from 'node:path';
import { MAILBOX_DIR } from './env';

export interface ReceivedMail {
  to: string[];
  subject: string;
  text: string;
  html: string;
}

/** Waits for the newest mail to `email` received after `since` (ms epoch). */
export async function waitForMail(email: string, since: number, timeoutMs = 15_000): Promise<ReceivedMail> {
  const deadline = Date.now() + timeoutMs;
  const address = email.toLowerCase();
  for (;;) {
    const files = fs.readdirSync(MAILBOX_DIR).filter((f) => f.endsWith('.json')).sort().reverse();
    for (const file of files) {
      if (Number(file.split('-')[0]) < since) break;
      const mail = JSON.parse(fs.readFileSync(path.join(MAILBOX_DIR, file), 'utf8')) as ReceivedMail;
      if (mail.to.includes(address)) return mail;
    }
    if (Date.now() > deadline) throw new Error(`no mail to ${email} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function extractCode(mail: ReceivedMail): string {
  const m = /(?<!\d)(\d{6})(?!\d)/.exec(mail.text);
  if (!m?.[1]) throw new Error('no 6-digit code in the mail');
  return m[1];
}

export function extractMagicPath(mail: ReceivedMail): string {
  const m = /\/auth\/magic\/([a-z0-9]{64})/.exec(mail.text);
  if (!m?.[1]) throw new Error('no magic link in the mail');
  return `/auth/magic/${m[1]}`;
}
