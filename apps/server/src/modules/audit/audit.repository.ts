import type { Executor } from '../../db/client';
import { auditLogs } from '../../db/schema/audit';

export async function insertAuditLog(ex: Executor, values: typeof auditLogs.$inferInsert): Promise<void> {
  await ex.insert(auditLogs).values(values);
}
