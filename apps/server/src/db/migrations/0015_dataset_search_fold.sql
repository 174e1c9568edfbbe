-- The dataset list folds keywords as the POI search does (issue 21); existing datasets get version 0
-- and the server's back-fill (search-backfill.ts) rewrites their search columns at start.
ALTER TABLE "datasets" ADD COLUMN "search_version" smallint DEFAULT 0 NOT NULL;