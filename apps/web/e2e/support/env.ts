import os from 'node:os';
import path from 'node:path';

export const E2E_PORT = Number(process.env.E2E_PORT ?? 8181);
export const E2E_BASE_URL = `http://127.0.0.1:${E2E_PORT}`;
/** Where the test SMTP listener drops one JSON file per received message. */
export const MAILBOX_DIR = path.join(os.tmpdir(), `poi-e2e-mailbox-${E2E_PORT}`);
export const ADMIN_EMAIL = 'admin@e2e.poi-cloud.test';
/** The administrator's session, signed in once by the global setup (one code mail per minute per address). */
export const ADMIN_SESSION_FILE = path.join(os.tmpdir(), `poi-e2e-admin-${E2E_PORT}.json`);
