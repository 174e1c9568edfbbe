import { sql } from 'drizzle-orm';
import { index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { users } from './users';

export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** SHA-256 of the whole key, hex: the key itself is never stored. */
    keyHash: text('key_hash').notNull().unique(),
    prefix: text('prefix').notNull(),
    allowedIps: text('allowed_ips').array().notNull().default(sql`'{}'::text[]`),
    allowedReferrers: text('allowed_referrers').array().notNull().default(sql`'{}'::text[]`),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    /** Set when the key was rotated: it then expires 24 hours later. */
    replacedBy: uuid('replaced_by'),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('api_keys_user_idx').on(t.userId, t.createdAt)],
);
