// `npm run sdk:generate`: writes packages/sdk/src/schema.d.ts from the OpenAPI document of the
// server in this checkout, built in-process on an in-memory PGlite (no running server, no network).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { OpenAPI3 } from 'openapi-typescript';
import { buildApp } from '../../../apps/server/src/app';
import { loadConfig } from '../../../apps/server/src/config';
import { openDatabase } from '../../../apps/server/src/db/client';
import { SCHEMA_FILE, schemaSource } from './schema-source';

const dataDir = mkdtempSync(path.join(tmpdir(), 'poi-sdk-generate-'));
const database = await openDatabase({});
const app = await buildApp(
  loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    APP_SECRET: 'sdk-generate-not-a-secret-0123456789abcdef',
    DATA_DIR: dataDir,
    WEB_DIST_DIR: path.join(dataDir, 'no-console'),
    BILLING_JOBS: 'off',
  }),
  { database },
);
try {
  await app.ready();
  const source = await schemaSource(app.swagger() as OpenAPI3);
  let before = '';
  try {
    before = readFileSync(SCHEMA_FILE, 'utf8');
  } catch {
    // First generation.
  }
  writeFileSync(SCHEMA_FILE, source);
  console.log(before === source ? `${path.relative(process.cwd(), SCHEMA_FILE)} is up to date` : `wrote ${path.relative(process.cwd(), SCHEMA_FILE)}`);
} finally {
  await app.close();
  await database.close();
  rmSync(dataDir, { recursive: true, force: true });
}
