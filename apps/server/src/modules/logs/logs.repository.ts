import { sql } from 'drizzle-orm';
import { FRONTEND_LOG_RETENTION_DAYS } from '@poi/shared/limits';
import type { Executor } from '../../db/client';
import { frontendLogs } from '../../db/schema/frontend-logs';

export type NewFrontendLog = typeof frontendLogs.$inferInsert;

export async function insertFrontendLog(ex: Executor, values: NewFrontendLog): Promise<void> {
  await ex.insert(frontendLogs).values(values);
}

export async function deleteExpiredFrontendLogs(ex: Executor): Promise<number> {
  const rows = await ex
    .delete(frontendLogs)
    .where(sql`${frontendLogs.createdAt} < now() - make_interval(days => ${FRONTEND_LOG_RETENTION_DAYS})`)
    .returning({ id: frontendLogs.id });
  return rows.length;
}
