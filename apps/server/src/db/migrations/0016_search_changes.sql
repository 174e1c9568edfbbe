CREATE TABLE "search_changes" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"txid" "xid8" DEFAULT pg_current_xact_id() NOT NULL,
	"kind" text NOT NULL,
	"dataset_id" uuid NOT NULL,
	"poi_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "search_changes_txid_idx" ON "search_changes" USING btree ("txid");--> statement-breakpoint
CREATE INDEX "search_changes_created_idx" ON "search_changes" USING btree ("created_at");--> statement-breakpoint
-- Every write of POIs and of the datasets' rows appends to the log in its own transaction
-- (statement triggers: one INSERT per statement, never per row). A statement touching more than
-- 500 POIs logs their datasets instead ('pois': read the dataset again). Updates that change
-- nothing an answer shows (the search columns' back-fill) are not logged.
CREATE FUNCTION search_log_pois() RETURNS trigger LANGUAGE plpgsql AS $$
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
              o.image_url, o.tags, o.created_at, o.updated_at)
             IS DISTINCT FROM
             (r.dataset_id, r.name, r.latitude, r.longitude, r.address, r.category, r.description, r.phone, r.website,
              r.image_url, r.tags, r.created_at, r.updated_at)
    ), many AS (SELECT count(*) > 1000 AS yes FROM (SELECT 1 FROM changed LIMIT 1001) AS s)
    SELECT DISTINCT 'pois', c.dataset_id, NULL::uuid FROM changed c, many WHERE many.yes
    UNION ALL
    SELECT DISTINCT 'poi', c.dataset_id, c.poi_id FROM changed c, many WHERE NOT many.yes;
  END IF;
  PERFORM pg_notify('search_changes', '');
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER pois_search_log_insert AFTER INSERT ON pois REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_log_pois();
--> statement-breakpoint
CREATE TRIGGER pois_search_log_update AFTER UPDATE ON pois REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_log_pois();
--> statement-breakpoint
CREATE TRIGGER pois_search_log_delete AFTER DELETE ON pois REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_log_pois();
--> statement-breakpoint
-- A dataset created, deleted, or changed in what searches and their prices read.
CREATE FUNCTION search_log_dataset() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_changes (kind, dataset_id) VALUES ('dataset', CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END);
  PERFORM pg_notify('search_changes', '');
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER datasets_search_log_insert AFTER INSERT OR DELETE ON datasets
  FOR EACH ROW EXECUTE FUNCTION search_log_dataset();
--> statement-breakpoint
CREATE TRIGGER datasets_search_log_update AFTER UPDATE OF price_per_search, provider_user_id, is_platform_dataset ON datasets
  FOR EACH ROW WHEN ((OLD.price_per_search, OLD.provider_user_id, OLD.is_platform_dataset) IS DISTINCT FROM (NEW.price_per_search, NEW.provider_user_id, NEW.is_platform_dataset))
  EXECUTE FUNCTION search_log_dataset();
