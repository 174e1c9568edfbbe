DROP INDEX "pois_dataset_created_idx";--> statement-breakpoint
CREATE INDEX "pois_dataset_created_idx" ON "pois" USING btree ("dataset_id","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);