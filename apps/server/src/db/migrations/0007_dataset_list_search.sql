ALTER TABLE "datasets" ADD COLUMN "search_text" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "datasets" ADD COLUMN "search_bigrams" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
-- Existing datasets: the same normalisation the server applies on insert (NFKC, lower case, runs of
-- white space as one space), and the distinct 2-character substrings without white space.
UPDATE "datasets" SET "search_text" = btrim(regexp_replace(lower(normalize("name" || ' ' || coalesce("description", ''), NFKC)), '\s+', ' ', 'g'));--> statement-breakpoint
UPDATE "datasets" SET "search_bigrams" = ARRAY(
  SELECT DISTINCT substr("search_text", i, 2) FROM generate_series(1, char_length("search_text") - 1) AS i
  WHERE substr("search_text", i, 2) !~ '\s'
);--> statement-breakpoint
CREATE INDEX "datasets_name_idx" ON "datasets" USING btree ("name","id");--> statement-breakpoint
CREATE INDEX "datasets_price_idx" ON "datasets" USING btree ("price_per_search","id");--> statement-breakpoint
CREATE INDEX "datasets_search_text_trgm_idx" ON "datasets" USING gin ("search_text" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "datasets_search_bigrams_idx" ON "datasets" USING gin ("search_bigrams");