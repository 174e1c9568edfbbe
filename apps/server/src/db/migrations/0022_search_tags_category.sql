-- Issue 33: the public search filters by tags (AND) and category, each compared whole after the
-- keyword's folding (@poi/shared/search-fold), which PostgreSQL cannot compute. Every write stores
-- the folded tags and category (search-columns.ts); rows written before this migration hold NULL
-- in search_tags until the search back-fill rewrites them (pois_search_tags_stale_idx finds them).
ALTER TABLE "pois" ADD COLUMN "search_tags" text[];--> statement-breakpoint
ALTER TABLE "pois" ADD COLUMN "search_category" text;--> statement-breakpoint
-- A rare tag or category among many POIs without keyword or point: without these, the list walked
-- the dataset's created_at index until it had found a page (every row for a tag nobody has).
CREATE INDEX "pois_search_tags_idx" ON "pois" USING gin ("search_tags");--> statement-breakpoint
CREATE INDEX "pois_dataset_search_category_idx" ON "pois" ("dataset_id", "search_category", "created_at" DESC, "id" DESC) WHERE "search_category" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "pois_search_tags_stale_idx" ON "pois" ("id") WHERE "search_tags" IS NULL;
