DROP INDEX "datasets_created_idx";--> statement-breakpoint
ALTER TABLE "datasets" ADD COLUMN "search_text" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "datasets" ADD COLUMN "search_grams" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
-- Existing datasets: the normalisation the server applies on insert (NFKC, lower case, runs of
-- white space as one space), then the distinct characters and 2-character substrings without
-- white space (datasetSearchColumns in datasets.repository.ts).
UPDATE "datasets" SET "search_text" = btrim(regexp_replace(lower(normalize("name" || ' ' || coalesce("description", ''), NFKC)), '\s+', ' ', 'g'));--> statement-breakpoint
UPDATE "datasets" SET "search_grams" = ARRAY(
  SELECT DISTINCT g FROM (
    SELECT substr("search_text", i, 1) AS g FROM generate_series(1, char_length("search_text")) AS i
    UNION ALL
    SELECT substr("search_text", i, 2) FROM generate_series(1, char_length("search_text") - 1) AS i
  ) AS grams
  WHERE g !~ '\s'
);--> statement-breakpoint
CREATE INDEX "datasets_name_idx" ON "datasets" USING btree ("name","id","is_platform_dataset","price_per_search");--> statement-breakpoint
CREATE INDEX "datasets_price_idx" ON "datasets" USING btree ("price_per_search","id","is_platform_dataset");--> statement-breakpoint
CREATE INDEX "datasets_search_text_trgm_idx" ON "datasets" USING gin ("search_text" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "datasets_search_grams_idx" ON "datasets" USING gin ("search_grams");--> statement-breakpoint
CREATE INDEX "datasets_created_idx" ON "datasets" USING btree ("created_at","id","is_platform_dataset","price_per_search");