import { bigserial, index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/** Append-only: every admin mutation and every money state change. */
export const auditLogs = pgTable(
  'audit_logs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    occurredAt: timestamp('occurred_at', { withTimezone: true }).notNull().defaultNow(),
    /** null for the system (the monthly close, webhooks). */
    actorId: uuid('actor_id'),
    actorEmail: text('actor_email'),
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id').notNull(),
    before: jsonb('before'),
    after: jsonb('after'),
    ip: text('ip'),
    requestId: text('request_id'),
  },
  (t) => [
    index('audit_logs_occurred_idx').on(t.occurredAt),
    index('audit_logs_target_idx').on(t.targetType, t.targetId, t.occurredAt),
    index('audit_logs_actor_idx').on(t.actorId, t.occurredAt),
    index('audit_logs_actor_email_idx').on(t.actorEmail, t.occurredAt),
    index('audit_logs_action_idx').on(t.action, t.occurredAt),
  ],
);
