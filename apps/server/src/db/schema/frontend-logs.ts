import { bigserial, index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

export const frontendLogs = pgTable(
  'frontend_logs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    userId: uuid('user_id'),
    ip: text('ip'),
    type: text('type').notNull(),
    message: text('message'),
    endpoint: text('endpoint'),
    method: text('method'),
    status: integer('status'),
    payload: jsonb('payload').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('frontend_logs_created_idx').on(t.createdAt)],
);
