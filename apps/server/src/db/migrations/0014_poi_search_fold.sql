-- Issue 21: the folded name (ranking of exact and prefix matches) and the folding version of each
-- row's search columns. Existing rows get version 0; the server's back-fill (search-backfill.ts)
-- rewrites them with readings in the background, through pois_search_stale_idx.
ALTER TABLE "pois" ADD COLUMN "search_name" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "pois" ADD COLUMN "search_version" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "pois_dataset_search_name_idx" ON "pois" USING btree ("dataset_id","search_name" text_pattern_ops);--> statement-breakpoint
CREATE INDEX "pois_search_stale_idx" ON "pois" USING btree ("id") WHERE "pois"."search_version" < 1;