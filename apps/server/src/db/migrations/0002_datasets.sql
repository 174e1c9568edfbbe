CREATE TABLE "dataset_price_history" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"dataset_id" uuid NOT NULL,
	"price" numeric(10, 2) NOT NULL,
	"effective_from" timestamp with time zone DEFAULT now() NOT NULL,
	"effective_until" timestamp with time zone,
	"reason" text,
	"changed_by" uuid
);
--> statement-breakpoint
CREATE TABLE "datasets" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"price_per_search" numeric(10, 2) NOT NULL,
	"is_platform_dataset" boolean NOT NULL,
	"created_by" uuid,
	"assigned_user_id" uuid,
	"provider_user_id" uuid,
	"stripe_product_id" text,
	"stripe_meter_id" text,
	"poi_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "datasets_price_range" CHECK ("datasets"."price_per_search" >= 0 AND "datasets"."price_per_search" <= 1000)
);
--> statement-breakpoint
CREATE TABLE "pois" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"dataset_id" uuid NOT NULL,
	"name" text NOT NULL,
	"latitude" double precision NOT NULL,
	"longitude" double precision NOT NULL,
	"address" text,
	"category" text,
	"description" text,
	"phone" text,
	"website" text,
	"image_url" text,
	"tags" text[] DEFAULT '{}'::text[] NOT NULL,
	"search_text" text NOT NULL,
	"search_bigrams" text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "pois_latitude_range" CHECK ("pois"."latitude" BETWEEN -90 AND 90),
	CONSTRAINT "pois_longitude_range" CHECK ("pois"."longitude" BETWEEN -180 AND 180)
);
--> statement-breakpoint
ALTER TABLE "dataset_price_history" ADD CONSTRAINT "dataset_price_history_dataset_id_datasets_id_fk" FOREIGN KEY ("dataset_id") REFERENCES "public"."datasets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dataset_price_history" ADD CONSTRAINT "dataset_price_history_changed_by_users_id_fk" FOREIGN KEY ("changed_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "datasets" ADD CONSTRAINT "datasets_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "datasets" ADD CONSTRAINT "datasets_assigned_user_id_users_id_fk" FOREIGN KEY ("assigned_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "datasets" ADD CONSTRAINT "datasets_provider_user_id_users_id_fk" FOREIGN KEY ("provider_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pois" ADD CONSTRAINT "pois_dataset_id_datasets_id_fk" FOREIGN KEY ("dataset_id") REFERENCES "public"."datasets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dataset_price_history_dataset_idx" ON "dataset_price_history" USING btree ("dataset_id","effective_from");--> statement-breakpoint
CREATE UNIQUE INDEX "dataset_price_history_current_idx" ON "dataset_price_history" USING btree ("dataset_id") WHERE "dataset_price_history"."effective_until" IS NULL;--> statement-breakpoint
CREATE INDEX "datasets_created_idx" ON "datasets" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "datasets_created_by_idx" ON "datasets" USING btree ("created_by");--> statement-breakpoint
CREATE INDEX "datasets_assigned_idx" ON "datasets" USING btree ("assigned_user_id");--> statement-breakpoint
CREATE INDEX "pois_dataset_created_idx" ON "pois" USING btree ("dataset_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "pois_search_text_trgm_idx" ON "pois" USING gin ("search_text" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "pois_search_bigrams_idx" ON "pois" USING gin ("search_bigrams");