import type { FastifyBaseLogger } from 'fastify';
import nodemailer, { type Transporter } from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** What the log shows when no SMTP server is configured (never the body of a real mail). */
  logSummary: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/** The default bound of one mail send (SMTP_TIMEOUT_MS): well inside the console's 30 s give-up. */
export const DEFAULT_SMTP_TIMEOUT_MS = 10_000;

export class MailTimeoutError extends Error {
  constructor(ms: number) {
    super(`mail not sent within ${ms} ms`);
    this.name = 'MailTimeoutError';
  }
}

/**
 * SMTP when SMTP_URL is set; otherwise the message is written to the server log.
 *
 * Every send is bounded by `timeoutMs` as a whole (connect, greeting, every command): a relay that
 * accepts the connection and never speaks would otherwise hold a sign-in for nodemailer's 30 s
 * greeting wait, and a job for up to its 10-minute socket timeout. The sign-in, invoice, budget,
 * transfer and payment mails all go through this one mailer.
 */
export function createMailer(options: { smtpUrl?: string; from: string; log: FastifyBaseLogger; timeoutMs?: number }): Mailer {
  if (!options.smtpUrl) {
    return {
      async send(message) {
        options.log.info(`sign-in mail to ${message.to} — ${message.logSummary}`);
      },
      close() {},
    };
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_SMTP_TIMEOUT_MS;
  const transport: Transporter = nodemailer.createTransport({
    url: options.smtpUrl,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    dnsTimeout: timeoutMs,
  });
  return {
    async send(message) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new MailTimeoutError(timeoutMs)), timeoutMs);
      });
      const sending = transport.sendMail({
        from: options.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
      });
      // The send may still fail after the deadline (its own timeouts end it): never unhandled.
      sending.catch(() => {});
      try {
        await Promise.race([sending, deadline]);
      } finally {
        clearTimeout(timer);
      }
    },
    close() {
      transport.close();
    },
  };
}
