import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SMTPServer } from 'smtp-server';
import { simpleParser } from 'mailparser';
import { ADMIN_EMAIL, ADMIN_SESSION_FILE, E2E_BASE_URL, E2E_PORT, MAILBOX_DIR } from './env';
import { extractCode, waitForMail } from './mailbox';

const here = path.dirname(fileURLToPath(import.meta.url));
const serverEntry = path.resolve(here, '../../../server/dist/server.js');

/**
 * Starts a real SMTP listener (mail is delivered by the server over SMTP, as in production)
 * and the built server on a fresh PGlite directory. Returns the teardown.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  fs.rmSync(MAILBOX_DIR, { recursive: true, force: true });
  fs.mkdirSync(MAILBOX_DIR, { recursive: true });
  let seq = 0;

  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          const to = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
          const file = path.join(MAILBOX_DIR, `${Date.now()}-${String(seq++).padStart(5, '0')}.json`);
          fs.writeFileSync(file, JSON.stringify({ to, subject: mail.subject, text: mail.text, html: mail.html }));
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const address = smtp.server.address();
  const smtpPort = typeof address === 'object' && address ? address.port : 0;

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'poi-e2e-data-'));
  const server: ChildProcess = spawn(process.execPath, [serverEntry], {
    env: {
      ...process.env,
      PORT: String(E2E_PORT),
      HOST: '127.0.0.1',
      PUBLIC_URL: E2E_BASE_URL,
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      ADMIN_EMAILS: ADMIN_EMAIL,
      AUTH_IP_LIMIT: '1000',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });

  const deadline = Date.now() + 60_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`server exited with ${server.exitCode}`);
    try {
      const res = await fetch(`${E2E_BASE_URL}/healthz`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('server did not become healthy in 60 s');
    await new Promise((r) => setTimeout(r, 250));
  }

  const since = Date.now();
  const post = (path: string, body: unknown) =>
    fetch(`${E2E_BASE_URL}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const requested = await post('/console/v1/auth/request-otp', { email: ADMIN_EMAIL });
  if (!requested.ok) throw new Error(`admin request-otp ${requested.status}`);
  const code = extractCode(await waitForMail(ADMIN_EMAIL, since));
  const verified = await post('/console/v1/auth/verify-otp', { email: ADMIN_EMAIL, code });
  if (!verified.ok) throw new Error(`admin verify-otp ${verified.status}`);
  fs.writeFileSync(ADMIN_SESSION_FILE, await verified.text());

  return async () => {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(ADMIN_SESSION_FILE, { force: true });
  };
}
