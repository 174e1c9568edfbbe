-- Radius search (ARCHITECTURE.md "Data"): an IMMUTABLE wrapper around ll_to_earth with a
-- SQL-standard body, so its dependencies are bound at creation and pg_dump/restore keeps the index.
CREATE FUNCTION poi_earth(lat double precision, lon double precision) RETURNS earth
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN ll_to_earth(lat, lon);
