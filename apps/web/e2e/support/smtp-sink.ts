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
          // Written aside and renamed into place: a reader polling the folder never sees half a file
          // (a sign-in once failed with "Unexpected end of JSON input" reading one mid-write).
          fs.writeFileSync(`${file}.part`, JSON.stringify({ to, subject: mail.subject, text: mail.text, html: mail.html }));
          fs.renameSync(`${file}.part`, file);
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
