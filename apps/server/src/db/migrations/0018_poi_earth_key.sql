-- Issue 30: the GiST index on the stored earth point took minutes for points on one line (3,000
-- collinear POIs: 80 s on PostgreSQL, and the embedded PGlite froze). cube's picksplit is
-- Guttman's quadratic split, which seeds a split with the pair wasting the most space,
-- volume(union) - volume(intersection); for two distinct points that "intersection" is the
-- inverted box between them, whose volume cube computes as the union's, so every pair wastes
-- nothing, the first two entries seed the split, and collinear points split 1 : n - 1 on every
-- insert. The index now holds each point as a box of ±1 µm (cube_enlarge): a pair's waste is then
-- positive and grows with its distance, and every layout builds like random points (3,000
-- collinear 0.12 s; 10,000 copies of one point 0.19 s; 100,000 random 3.2 s). Searches keep the
-- exact order: they walk this index by the distance to the box (never more than the point's) and
-- sort the walk's rows by the stored point's exact KNN value (pois.repository.ts). The point
-- itself is included, so radius walks stay index-only.
DROP INDEX "pois_earth_idx";--> statement-breakpoint
CREATE INDEX "pois_earth_idx" ON "pois" USING gist (cube_enlarge("earth", 1e-6, 3)) INCLUDE ("dataset_id", "id", "earth");
