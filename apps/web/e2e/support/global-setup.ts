import fs from 'node:fs';
import { ADMIN_EMAIL, ADMIN_SESSION_FILE, E2E_BASE_URL, E2E_PORT, MAILBOX_DIR } from './env';
import { extractCode, waitForMail } from './mailbox';
import { startServerProcess } from './server-process';
import { startSmtpSink } from './smtp-sink';

/**
 * Starts a real SMTP listener (mail is delivered by the server over SMTP, as in production)
 * and the built server on a fresh PGlite directory. Returns the teardown.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  fs.rmSync(MAILBOX_DIR, { recursive: true, force: true });
  fs.mkdirSync(MAILBOX_DIR, { recursive: true });
  const smtp = await startSmtpSink();

  const server = await startServerProcess(E2E_PORT, smtp.port, { ADMIN_EMAILS: ADMIN_EMAIL });

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
    await server.stop();
    await smtp.close();
    fs.rmSync(ADMIN_SESSION_FILE, { force: true });
  };
}
