-- /usage reads one consumer's month from the per-consumer rollups: ~30 rows a key from usage_daily
-- and up to a few thousand (day × dataset) from usage_dataset_daily, each a heap row on its own
-- page among every other consumer's rows (0.3 s at p95 for months no longer in memory, 20 M events).
-- Their indexes now carry what /usage sums, so a month is read from the index alone:
-- - usage_daily's primary key (user_id, day, api_key_id) includes searches, free_searches, amount_sen;
-- - usage_dataset_daily's index by consumer (user_id, day) includes dataset_id, searches, amount_sen.
-- The flush's upserts already changed an indexed column (the two indexes dropped below held the
-- counts), so they were never HOT updates: covering indexes cost them nothing more, and each table
-- loses indexes no query reads any more since revenue and the dashboard moved to the rollups
-- without the consumer (0025, and the close's first month):
-- - usage_daily_day_idx (day, searches);
-- - usage_dataset_daily_day_idx (day, recipient, dataset and the sums) and _recipient_idx.
DROP INDEX IF EXISTS "usage_daily_day_idx";--> statement-breakpoint
ALTER TABLE "usage_daily" DROP CONSTRAINT "usage_daily_user_id_day_api_key_id_pk";--> statement-breakpoint
ALTER TABLE "usage_daily" ADD CONSTRAINT "usage_daily_user_id_day_api_key_id_pk" PRIMARY KEY ("user_id", "day", "api_key_id") INCLUDE ("searches", "free_searches", "amount_sen");--> statement-breakpoint
DROP INDEX IF EXISTS "usage_dataset_daily_day_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "usage_dataset_daily_recipient_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "usage_dataset_daily_user_idx";--> statement-breakpoint
CREATE INDEX "usage_dataset_daily_user_idx" ON "usage_dataset_daily" USING btree ("user_id", "day") INCLUDE ("dataset_id", "searches", "amount_sen");
