-- The admin dashboard's counts at 100,000 users and 750,000 invoices read far more than they count:
-- - users with a failed card payment tested every user against the open invoices (0.12 s); they
--   are now found from the failing invoices themselves, a handful, by this partial index;
-- - overdue invoices (their number and what is owed) and bank transfers expected fetched each open
--   invoice's row from the heap, scattered over the table (0.16 s cold); open invoices are a few
--   percent of all, and this partial index carries what those counts read;
-- - sign-ups this month scanned the whole (account type, created at) index; the index by creation
--   time now carries the account type, so a month of sign-ups is a range of it.
CREATE INDEX "invoices_card_failed_idx" ON "invoices" USING btree ("billing_account_id") WHERE "payment_method" = 'card' AND "status" IN ('issued', 'overdue') AND "last_payment_error" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "invoices_open_idx" ON "invoices" USING btree ("status", "payment_method") INCLUDE ("total_yen", "credit_applied_yen", "paid_yen", "credited_yen") WHERE "status" IN ('issued', 'partially_paid', 'overdue');--> statement-breakpoint
DROP INDEX IF EXISTS "users_created_idx";--> statement-breakpoint
CREATE INDEX "users_created_idx" ON "users" USING btree ("created_at", "id") INCLUDE ("account_type");
