-- The monthly close, the billing screen's current month and the budget guard read raw usage_events;
-- raw events are now dropped after a retention period (docs/billing.md "Usage data"), so what an
-- invoice needs is kept in two rollups the flush statement maintains, as it does usage_daily:
-- - usage_charge_monthly: a Japan-time month's billable quantities per user, grouped as invoice
--   lines are: per dataset and unit price (datasets at a price above 0), and the base fee per
--   unit price (non-free searches with a base fee above 0) under the dataset id
--   00000000-0000-0000-0000-000000000000.
-- - usage_user_monthly: a user's searches in the month and their account type on the last one
--   (the monthly fee's account type; a user with any search in a month is billed for it).
-- Both are back-filled here from every raw event there is.
CREATE TABLE "usage_charge_monthly" (
	"year_month" text NOT NULL,
	"user_id" uuid NOT NULL,
	"dataset_id" uuid NOT NULL,
	"unit_price_sen" integer NOT NULL,
	"searches" bigint NOT NULL,
	-- The close reads a month, budgets and /billing a few users' month: both are ranges of this key,
	-- so no other index (the flush upserts these rows every second).
	CONSTRAINT "usage_charge_monthly_pk" PRIMARY KEY ("year_month", "user_id", "dataset_id", "unit_price_sen")
);--> statement-breakpoint
CREATE TABLE "usage_user_monthly" (
	"year_month" text NOT NULL,
	"user_id" uuid NOT NULL,
	"searches" bigint NOT NULL,
	"last_occurred_at" timestamp with time zone NOT NULL,
	"last_account_type" text NOT NULL,
	CONSTRAINT "usage_user_monthly_pk" PRIMARY KEY ("year_month", "user_id")
);--> statement-breakpoint
INSERT INTO "usage_charge_monthly" ("year_month", "user_id", "dataset_id", "unit_price_sen", "searches")
SELECT year_month, user_id, dataset_id, unit_price_sen, count(*)
FROM (
  SELECT to_char((e.occurred_at AT TIME ZONE 'UTC') + interval '9 hours', 'YYYY-MM') AS year_month, e.user_id, d.dataset_id, d.price_sen AS unit_price_sen
  FROM "usage_events" e
  CROSS JOIN LATERAL unnest(e.dataset_ids, e.dataset_prices_sen) AS d(dataset_id, price_sen)
  WHERE d.price_sen > 0
  UNION ALL
  SELECT to_char((e.occurred_at AT TIME ZONE 'UTC') + interval '9 hours', 'YYYY-MM'), e.user_id, '00000000-0000-0000-0000-000000000000'::uuid, e.base_fee_sen
  FROM "usage_events" e
  WHERE NOT e.free AND e.base_fee_sen > 0
) c
GROUP BY year_month, user_id, dataset_id, unit_price_sen;--> statement-breakpoint
INSERT INTO "usage_user_monthly" ("year_month", "user_id", "searches", "last_occurred_at", "last_account_type")
SELECT DISTINCT ON (year_month, user_id) year_month, user_id, count(*) OVER (PARTITION BY year_month, user_id), occurred_at, account_type
FROM (
  SELECT to_char((occurred_at AT TIME ZONE 'UTC') + interval '9 hours', 'YYYY-MM') AS year_month, user_id, occurred_at, account_type
  FROM "usage_events"
) e
ORDER BY year_month, user_id, occurred_at DESC;
