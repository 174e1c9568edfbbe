CREATE INDEX "audit_logs_actor_email_idx" ON "audit_logs" USING btree ("actor_email","occurred_at");--> statement-breakpoint
CREATE INDEX "audit_logs_action_idx" ON "audit_logs" USING btree ("action","occurred_at");--> statement-breakpoint
CREATE INDEX "users_created_idx" ON "users" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "users_display_name_idx" ON "users" USING btree ("display_name","id");--> statement-breakpoint
CREATE INDEX "users_last_login_idx" ON "users" USING btree ("last_login_at","id");--> statement-breakpoint
CREATE INDEX "users_email_order_idx" ON "users" USING btree ("email","id");--> statement-breakpoint
CREATE INDEX "users_search_trgm_idx" ON "users" USING gin ((lower(normalize("email", NFKC)) || ' ' || lower(normalize(coalesce("display_name", ''), NFKC))) gin_trgm_ops);