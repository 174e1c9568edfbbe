import fs from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { MAILBOX_DIR } from './env';

let seq = 0;

/**
 * A real SMTP listener (servers deliver over SMTP, as in production) that drops one JSON file
 * per message into MAILBOX_DIR, where waitForMail reads them.
 */
export async function startSmtpSink(): Promise<{ port: number; close(): Promise<void> }> {
  fs.mkdirSync(MAILBOX_DIR, { recursive: true });
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          const to = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
          const file = path.join(MAILBOX_DIR, `${Date.now()}-${process.pid}-${String(seq++).padStart(5, '0')}.json`);
          fs.writeFileSync(file, JSON.stringify({ to, subject: mail.subject, text: mail.text, html: mail.html }));
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const address = smtp.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { port, close: () => new Promise<void>((resolve) => smtp.close(() => resolve())) };
}
