-- The in-memory index matches keywords on search_text too (issue 15): an update that changes only
-- the search columns (the back-fill's rewrite of a row) is logged like any other change.
CREATE OR REPLACE FUNCTION search_log_pois() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  n bigint;
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT count(*) INTO n FROM (SELECT 1 FROM new_rows LIMIT 501) AS s;
    IF n > 500 THEN
      INSERT INTO search_changes (kind, dataset_id) SELECT DISTINCT 'pois', dataset_id FROM new_rows;
    ELSE
      INSERT INTO search_changes (kind, dataset_id, poi_id) SELECT 'poi', dataset_id, id FROM new_rows;
    END IF;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT count(*) INTO n FROM (SELECT 1 FROM old_rows LIMIT 501) AS s;
    IF n > 500 THEN
      INSERT INTO search_changes (kind, dataset_id) SELECT DISTINCT 'pois', dataset_id FROM old_rows;
    ELSE
      INSERT INTO search_changes (kind, dataset_id, poi_id) SELECT 'poi', dataset_id, id FROM old_rows;
    END IF;
  ELSE
    INSERT INTO search_changes (kind, dataset_id, poi_id)
    WITH changed AS (
      SELECT d.dataset_id, d.poi_id
        FROM old_rows o JOIN new_rows r USING (id),
             LATERAL (VALUES (o.dataset_id, o.id), (r.dataset_id, r.id)) AS d(dataset_id, poi_id)
       WHERE (o.dataset_id, o.name, o.latitude, o.longitude, o.address, o.category, o.description, o.phone, o.website,
              o.image_url, o.tags, o.created_at, o.updated_at, o.search_text)
             IS DISTINCT FROM
             (r.dataset_id, r.name, r.latitude, r.longitude, r.address, r.category, r.description, r.phone, r.website,
              r.image_url, r.tags, r.created_at, r.updated_at, r.search_text)
    ), many AS (SELECT count(*) > 1000 AS yes FROM (SELECT 1 FROM changed LIMIT 1001) AS s)
    SELECT DISTINCT 'pois', c.dataset_id, NULL::uuid FROM changed c, many WHERE many.yes
    UNION ALL
    SELECT DISTINCT 'poi', c.dataset_id, c.poi_id FROM changed c, many WHERE NOT many.yes;
  END IF;
  PERFORM pg_notify('search_changes', '');
  RETURN NULL;
END $$;
