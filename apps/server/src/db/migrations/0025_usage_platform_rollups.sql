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
--> statement-breakpoint
-- Platform revenue's "billed" per dataset summed a month's invoice lines (250,000 lines of 68,000
-- invoices a month at 100,000 users: 0.3–0.7 s whatever the plan). invoice_dataset_monthly keeps
-- it: per month and dataset, the amount and number of dataset lines of monthly invoices neither
-- draft nor void, kept by triggers (an invoice entering or leaving that set; a line of one in it).
-- Issued invoices' lines and months never change (invoices_issued_immutable), so these cover it.
CREATE TABLE "invoice_dataset_monthly" (
	"year_month" text NOT NULL,
	"dataset_id" uuid NOT NULL,
	"billed_yen" bigint NOT NULL,
	"lines" bigint NOT NULL,
	CONSTRAINT "invoice_dataset_monthly_pk" PRIMARY KEY ("year_month", "dataset_id")
);--> statement-breakpoint
CREATE FUNCTION "invoice_dataset_monthly_add"(ym text, inv uuid, sign integer) RETURNS void LANGUAGE sql AS $$
  -- In key order: concurrent issues of the same month wait for each other, never deadlock.
  INSERT INTO "invoice_dataset_monthly" ("year_month", "dataset_id", "billed_yen", "lines")
  SELECT ym, l."dataset_id", sign * sum(l."amount_yen"), sign * count(*)
  FROM "invoice_lines" l WHERE l."invoice_id" = inv AND l."kind" = 'dataset' AND l."dataset_id" IS NOT NULL
  GROUP BY l."dataset_id" ORDER BY l."dataset_id"
  ON CONFLICT ("year_month", "dataset_id") DO UPDATE SET
    "billed_yen" = "invoice_dataset_monthly"."billed_yen" + EXCLUDED."billed_yen",
    "lines" = "invoice_dataset_monthly"."lines" + EXCLUDED."lines";
$$;--> statement-breakpoint
CREATE FUNCTION "invoice_dataset_monthly_invoice"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  was boolean := TG_OP = 'UPDATE' AND OLD."kind" = 'monthly' AND OLD."status" NOT IN ('draft', 'void');
  counted boolean := NEW."kind" = 'monthly' AND NEW."status" NOT IN ('draft', 'void');
BEGIN
  IF was AND (NOT counted OR OLD."year_month" IS DISTINCT FROM NEW."year_month") THEN
    PERFORM "invoice_dataset_monthly_add"(OLD."year_month", OLD."id", -1);
  END IF;
  IF counted AND (NOT was OR OLD."year_month" IS DISTINCT FROM NEW."year_month") THEN
    PERFORM "invoice_dataset_monthly_add"(NEW."year_month", NEW."id", 1);
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "invoice_dataset_monthly_invoice" AFTER INSERT OR UPDATE OF "status", "kind", "year_month" ON "invoices" FOR EACH ROW EXECUTE FUNCTION "invoice_dataset_monthly_invoice"();--> statement-breakpoint
CREATE FUNCTION "invoice_dataset_monthly_line"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE ym text;
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD."kind" = 'dataset' AND OLD."dataset_id" IS NOT NULL THEN
    SELECT i."year_month" INTO ym FROM "invoices" i WHERE i."id" = OLD."invoice_id" AND i."kind" = 'monthly' AND i."status" NOT IN ('draft', 'void');
    IF FOUND THEN
      INSERT INTO "invoice_dataset_monthly" VALUES (ym, OLD."dataset_id", -OLD."amount_yen", -1)
      ON CONFLICT ("year_month", "dataset_id") DO UPDATE SET
        "billed_yen" = "invoice_dataset_monthly"."billed_yen" + EXCLUDED."billed_yen", "lines" = "invoice_dataset_monthly"."lines" + EXCLUDED."lines";
    END IF;
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') AND NEW."kind" = 'dataset' AND NEW."dataset_id" IS NOT NULL THEN
    SELECT i."year_month" INTO ym FROM "invoices" i WHERE i."id" = NEW."invoice_id" AND i."kind" = 'monthly' AND i."status" NOT IN ('draft', 'void');
    IF FOUND THEN
      INSERT INTO "invoice_dataset_monthly" VALUES (ym, NEW."dataset_id", NEW."amount_yen", 1)
      ON CONFLICT ("year_month", "dataset_id") DO UPDATE SET
        "billed_yen" = "invoice_dataset_monthly"."billed_yen" + EXCLUDED."billed_yen", "lines" = "invoice_dataset_monthly"."lines" + EXCLUDED."lines";
    END IF;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "invoice_dataset_monthly_line" AFTER INSERT OR UPDATE OR DELETE ON "invoice_lines" FOR EACH ROW EXECUTE FUNCTION "invoice_dataset_monthly_line"();--> statement-breakpoint
INSERT INTO "invoice_dataset_monthly" ("year_month", "dataset_id", "billed_yen", "lines")
SELECT i."year_month", l."dataset_id", sum(l."amount_yen"), count(*)
FROM "invoice_lines" l JOIN "invoices" i ON i."id" = l."invoice_id"
WHERE i."kind" = 'monthly' AND i."status" NOT IN ('draft', 'void') AND l."kind" = 'dataset' AND l."dataset_id" IS NOT NULL
GROUP BY 1, 2;
