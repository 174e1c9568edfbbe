-- The radius index covers dataset_id and id (INCLUDE; the cube opclass has no compress function,
-- so GiST can answer from the index alone): the walks of a radius search without keyword (the
-- page's KNN window and the count of the total up to the cap) are index-only scans and read no
-- table rows once the pages are all-visible (the server vacuums pois after an import). Kept
-- under its name; drizzle's schema cannot express INCLUDE, so this is hand-written.
DROP INDEX "pois_earth_idx";--> statement-breakpoint
CREATE INDEX "pois_earth_idx" ON "pois" USING gist ("earth") INCLUDE ("dataset_id", "id");
