/**
 * The one distance model of POI search: a sphere of the mean Earth radius (IUGG R1,
 * 6,371,008.8 m). The radius filter and `distance_m` use it on every engine, and so must any
 * other search index (the in-memory one included): great-circle distance on this sphere, which
 * is what the haversine formula below computes.
 */
export const EARTH_MEAN_RADIUS_M = 6_371_008.8;

/**
 * earthdistance's `earth()`: the radius its cube coordinates (ll_to_earth) are built on. Those
 * coordinates scale linearly with it, so PostgreSQL searches keep the GiST index and its KNN
 * order and convert: a radius r becomes r × EARTHDISTANCE_RADIUS_M / EARTH_MEAN_RADIUS_M in the
 * filter, and earth_distance × EARTH_MEAN_RADIUS_M / EARTHDISTANCE_RADIUS_M is reported.
 */
export const EARTHDISTANCE_RADIUS_M = 6_378_168;

/** Great-circle metres between two WGS84 points on the sphere of EARTH_MEAN_RADIUS_M. */
export function greatCircleMeters(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLon = (lon2 - lon1) * rad;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_MEAN_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}
