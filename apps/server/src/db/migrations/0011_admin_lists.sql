DROP INDEX "users_search_trgm_idx";--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "search_text" text GENERATED ALWAYS AS (lower(normalize(email, NFKC)) || ' ' || lower(normalize(coalesce(display_name, ''), NFKC))) STORED;--> statement-breakpoint
CREATE INDEX "usage_daily_day_idx" ON "usage_daily" USING btree ("day","searches");--> statement-breakpoint
CREATE INDEX "usage_dataset_daily_day_idx" ON "usage_dataset_daily" USING btree ("day","recipient_id","dataset_id","searches","amount_sen","revenue_units");--> statement-breakpoint
CREATE INDEX "billing_accounts_method_user_idx" ON "billing_accounts" USING btree ("payment_method","user_id");--> statement-breakpoint
CREATE INDEX "billing_accounts_method_corporate_idx" ON "billing_accounts" USING btree ("payment_method","corporate_account_id");--> statement-breakpoint
CREATE INDEX "invoices_month_figures_idx" ON "invoices" USING btree ("year_month","kind","status","subtotal_yen","tax_yen","total_yen","paid_yen","credit_applied_yen");--> statement-breakpoint
CREATE INDEX "users_search_trgm_idx" ON "users" USING gin ("search_text" gin_trgm_ops);