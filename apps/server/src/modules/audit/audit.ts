import type { FastifyRequest } from 'fastify';
import type { Executor } from '../../db/client';
import type { auditLogs } from '../../db/schema/audit';
import { insertAuditLog } from './audit.repository';

/** Who did it: a signed-in administrator or user (from the request), or the system (jobs, webhooks). */
export interface AuditActor {
  id: string | null;
  email: string | null;
  ip: string | null;
  requestId: string | null;
}

export const SYSTEM_ACTOR: AuditActor = { id: null, email: null, ip: null, requestId: null };

/** The actor of a request whose user is signed in (request.currentUser set by the auth plugin). */
export function actorOf(request: FastifyRequest): AuditActor {
  const user = request.currentUser;
  return { id: user?.id ?? null, email: user?.email ?? null, ip: request.ip, requestId: String(request.id) };
}

export type AuditRow = typeof auditLogs.$inferSelect;

/** An audit row as the API answers it (admin user detail, corporate detail, revenue, the audit log). */
export const toAuditEntry = (r: AuditRow) => ({
  id: r.id,
  occurred_at: r.occurredAt.toISOString(),
  actor_id: r.actorId,
  actor_email: r.actorEmail,
  action: r.action,
  target_type: r.targetType,
  target_id: r.targetId,
  before: r.before ?? null,
  after: r.after ?? null,
  ip: r.ip,
  request_id: r.requestId,
});

export interface AuditEntry {
  action: string;
  targetType: string;
  targetId: string;
  before?: unknown;
  after?: unknown;
}

/**
 * Appends one audit row (docs/billing.md "Administration"): call it in the same transaction as the
 * change it records, so a change and its audit row commit together or not at all.
 */
export async function writeAudit(ex: Executor, actor: AuditActor, entry: AuditEntry): Promise<void> {
  await insertAuditLog(ex, {
    actorId: actor.id,
    actorEmail: actor.email,
    action: entry.action,
    targetType: entry.targetType,
    targetId: entry.targetId,
    before: entry.before ?? null,
    after: entry.after ?? null,
    ip: actor.ip,
    requestId: actor.requestId,
  });
}
