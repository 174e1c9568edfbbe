-- The admin revenue screens and the admin dashboard summed a whole month of usage_dataset_daily and
-- usage_daily: rows per consumer and day, so millions of rows a month at 100,000 users, which no
-- index makes fast. Two rollups without the consumer, kept by the flush statement with the others
-- (only rows actually inserted into usage_events count, so a retried flush adds nothing):
-- - usage_platform_dataset_daily: per Japan day, revenue recipient and dataset (as usage_dataset_daily
--   summed over its consumers): searches, amount_sen, revenue_units. A month is a few thousand rows.
-- - usage_platform_daily: per Japan day, the platform's searches, free searches and amount_sen
--   (usage_daily summed over users and keys): the dashboard's searches today and this month.
-- Both are back-filled from the per-user rollups (cheaper than the raw events, and equal to them).
CREATE TABLE "usage_platform_dataset_daily" (
	"day" date NOT NULL,
	"recipient_id" uuid NOT NULL,
	"dataset_id" uuid NOT NULL,
	"searches" bigint NOT NULL,
	"amount_sen" bigint NOT NULL,
	"revenue_units" bigint NOT NULL,
	-- The platform views read a range of days; one provider's months a range of (recipient, day).
	CONSTRAINT "usage_platform_dataset_daily_pk" PRIMARY KEY ("day", "recipient_id", "dataset_id")
);--> statement-breakpoint
CREATE INDEX "usage_platform_dataset_daily_recipient_idx" ON "usage_platform_dataset_daily" ("recipient_id", "day");--> statement-breakpoint
CREATE TABLE "usage_platform_daily" (
	"day" date PRIMARY KEY NOT NULL,
	"searches" bigint NOT NULL,
	"free_searches" bigint NOT NULL,
	"amount_sen" bigint NOT NULL
);--> statement-breakpoint
INSERT INTO "usage_platform_dataset_daily" ("day", "recipient_id", "dataset_id", "searches", "amount_sen", "revenue_units")
SELECT day, recipient_id, dataset_id, sum(searches), sum(amount_sen), sum(revenue_units)
FROM "usage_dataset_daily"
GROUP BY day, recipient_id, dataset_id;--> statement-breakpoint
INSERT INTO "usage_platform_daily" ("day", "searches", "free_searches", "amount_sen")
SELECT day, sum(searches), sum(free_searches), sum(amount_sen)
FROM "usage_daily"
GROUP BY day;
