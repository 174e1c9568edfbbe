-- usage_events grows by every billable search and was one table without bound. It becomes a table
-- partitioned by Japan-time month of occurred_at (invoices are per Japan-time month, so a month's
-- raw events are one partition, and dropping a month past retention is a DETACH + DROP instead of
-- a DELETE of millions of rows; docs/billing.md "Usage data"). A partitioned table's primary key
-- must hold the partition key: (request_id, occurred_at). The meter stores an event with the
-- same request id and instant on every retry, so ON CONFLICT on that key still stores it once.
-- The rows of the old table are moved in this migration; the DEFAULT partition takes an event of a
-- month without a partition of its own, so an insert never fails (the usage-partitions job makes
-- the coming months' partitions ahead and moves such rows out of it).
ALTER TABLE "usage_events" RENAME TO "usage_events_unpartitioned";--> statement-breakpoint
ALTER TABLE "usage_events_unpartitioned" RENAME CONSTRAINT "usage_events_pkey" TO "usage_events_unpartitioned_pkey";--> statement-breakpoint
ALTER INDEX "usage_events_user_idx" RENAME TO "usage_events_unpartitioned_user_idx";--> statement-breakpoint
CREATE TABLE "usage_events" (
	"request_id" uuid NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"user_id" uuid NOT NULL,
	"api_key_id" uuid NOT NULL,
	"account_type" text NOT NULL,
	"pricing_version_id" bigint NOT NULL,
	"dataset_ids" uuid[] NOT NULL,
	"dataset_prices_sen" integer[] NOT NULL,
	"dataset_shares_bp" integer[] NOT NULL,
	"dataset_recipient_ids" uuid[] NOT NULL,
	"base_fee_sen" integer NOT NULL,
	"amount_sen" integer NOT NULL,
	"free" boolean NOT NULL,
	CONSTRAINT "usage_events_pkey" PRIMARY KEY ("request_id", "occurred_at")
) PARTITION BY RANGE ("occurred_at");--> statement-breakpoint
CREATE INDEX "usage_events_user_idx" ON "usage_events" USING btree ("user_id", "occurred_at");--> statement-breakpoint
CREATE TABLE "usage_events_default" PARTITION OF "usage_events" DEFAULT;--> statement-breakpoint
-- The partition of the Japan-time month holding `month` (any day of it): usage_events_YYYY_MM,
-- from 00:00 JST on the 1st to 00:00 JST on the next 1st. Rows the DEFAULT partition holds for
-- that month move into it (ATTACH refuses while the default holds any). False when it exists.
-- Under a transaction-level advisory lock: two instances running the job at once make it once.
CREATE FUNCTION usage_events_add_partition(month date) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  first date := date_trunc('month', month)::date;
  name text := 'usage_events_' || to_char(first, 'YYYY_MM');
  -- Japan has no daylight saving time: 00:00 JST is 15:00 UTC the day before.
  lower_bound timestamptz := (first::timestamp - interval '9 hours') AT TIME ZONE 'UTC';
  upper_bound timestamptz := ((first + interval '1 month')::timestamp - interval '9 hours') AT TIME ZONE 'UTC';
BEGIN
  PERFORM pg_advisory_xact_lock(7312024623);
  IF to_regclass(name) IS NOT NULL THEN
    RETURN false;
  END IF;
  EXECUTE format('CREATE TABLE %I (LIKE usage_events INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', name);
  EXECUTE format(
    'WITH moved AS (DELETE FROM usage_events_default WHERE occurred_at >= %L AND occurred_at < %L RETURNING *) INSERT INTO %I SELECT * FROM moved',
    lower_bound, upper_bound, name);
  EXECUTE format('ALTER TABLE usage_events ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', name, lower_bound, upper_bound);
  RETURN true;
END $$;--> statement-breakpoint
-- A partition for every month with events, this month and the next, then the rows.
SELECT usage_events_add_partition(m) FROM (
  SELECT DISTINCT date_trunc('month', (occurred_at AT TIME ZONE 'UTC') + interval '9 hours')::date AS m FROM "usage_events_unpartitioned"
  UNION SELECT ((now() AT TIME ZONE 'UTC') + interval '9 hours')::date
  UNION SELECT ((now() AT TIME ZONE 'UTC') + interval '9 hours' + interval '1 month')::date
) months ORDER BY m;--> statement-breakpoint
INSERT INTO "usage_events" SELECT * FROM "usage_events_unpartitioned";--> statement-breakpoint
DROP TABLE "usage_events_unpartitioned";
