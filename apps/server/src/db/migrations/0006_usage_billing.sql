CREATE TABLE "api_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"name" text NOT NULL,
	"key_hash" text NOT NULL,
	"prefix" text NOT NULL,
	"allowed_ips" text[] DEFAULT '{}'::text[] NOT NULL,
	"allowed_referrers" text[] DEFAULT '{}'::text[] NOT NULL,
	"expires_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"replaced_by" uuid,
	"last_used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "api_keys_key_hash_unique" UNIQUE("key_hash")
);
--> statement-breakpoint
CREATE TABLE "pricing_versions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_type" text NOT NULL,
	"effective_from" timestamp with time zone NOT NULL,
	"base_fee" numeric(10, 2) NOT NULL,
	"free_searches_per_month" integer NOT NULL,
	"monthly_fee" numeric(10, 2) DEFAULT '0' NOT NULL,
	"provider_share_bp" integer NOT NULL,
	"rate_limit_per_minute" integer NOT NULL,
	"max_api_keys" integer NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "pricing_versions_type_from_key" UNIQUE("account_type","effective_from"),
	CONSTRAINT "pricing_versions_base_fee" CHECK ("pricing_versions"."base_fee" >= 0 AND "pricing_versions"."base_fee" <= 1000),
	CONSTRAINT "pricing_versions_free" CHECK ("pricing_versions"."free_searches_per_month" >= 0),
	CONSTRAINT "pricing_versions_share" CHECK ("pricing_versions"."provider_share_bp" BETWEEN 0 AND 10000),
	CONSTRAINT "pricing_versions_rate" CHECK ("pricing_versions"."rate_limit_per_minute" > 0),
	CONSTRAINT "pricing_versions_keys" CHECK ("pricing_versions"."max_api_keys" > 0)
);
--> statement-breakpoint
CREATE TABLE "usage_daily" (
	"user_id" uuid NOT NULL,
	"day" date NOT NULL,
	"api_key_id" uuid NOT NULL,
	"searches" bigint NOT NULL,
	"free_searches" bigint NOT NULL,
	"amount_sen" bigint NOT NULL,
	CONSTRAINT "usage_daily_user_id_day_api_key_id_pk" PRIMARY KEY("user_id","day","api_key_id")
);
--> statement-breakpoint
CREATE TABLE "usage_dataset_daily" (
	"dataset_id" uuid NOT NULL,
	"day" date NOT NULL,
	"user_id" uuid NOT NULL,
	"recipient_id" uuid NOT NULL,
	"searches" bigint NOT NULL,
	"amount_sen" bigint NOT NULL,
	"revenue_units" bigint NOT NULL,
	CONSTRAINT "usage_dataset_daily_dataset_id_day_user_id_recipient_id_pk" PRIMARY KEY("dataset_id","day","user_id","recipient_id")
);
--> statement-breakpoint
CREATE TABLE "usage_events" (
	"request_id" uuid PRIMARY KEY NOT NULL,
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
	"free" boolean NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pricing_versions" ADD CONSTRAINT "pricing_versions_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_keys_user_idx" ON "api_keys" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "usage_dataset_daily_user_idx" ON "usage_dataset_daily" USING btree ("user_id","day");--> statement-breakpoint
CREATE INDEX "usage_dataset_daily_recipient_idx" ON "usage_dataset_daily" USING btree ("recipient_id","day");--> statement-breakpoint
CREATE INDEX "usage_events_user_idx" ON "usage_events" USING btree ("user_id","occurred_at");--> statement-breakpoint
-- Default pricing, in force from the start; admins add later versions (effective_from).
INSERT INTO "pricing_versions" ("account_type", "effective_from", "base_fee", "free_searches_per_month", "monthly_fee", "provider_share_bp", "rate_limit_per_minute", "max_api_keys") VALUES
  ('trial',          '2020-01-01T00:00:00+09:00', 0.00,  1000, 0, 7000,   60,   2),
  ('individual',     '2020-01-01T00:00:00+09:00', 0.10,  1000, 0, 7000,  600,  10),
  ('corporate',      '2020-01-01T00:00:00+09:00', 0.05, 10000, 0, 7000, 6000,  50),
  ('data_provider',  '2020-01-01T00:00:00+09:00', 0.10,  1000, 0, 7000,  600,  10),
  ('platform_admin', '2020-01-01T00:00:00+09:00', 0.00,     0, 0, 7000, 6000, 100);
