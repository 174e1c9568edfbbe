ALTER TABLE "users" ADD COLUMN "payment_method" text;--> statement-breakpoint
CREATE INDEX "users_payment_method_idx" ON "users" USING btree ("payment_method","created_at","id");--> statement-breakpoint
-- users.payment_method follows the billing accounts: the user's own account's method, else their
-- company's. Set on insert and when a user joins or leaves a company, and again when an account is
-- opened or changes its method (hand-written: drizzle's schema has no triggers).
CREATE FUNCTION "users_payment_method"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW."payment_method" := coalesce(
    (SELECT b."payment_method" FROM "billing_accounts" b WHERE b."user_id" = NEW."id"),
    (SELECT b."payment_method" FROM "billing_accounts" b WHERE NEW."corporate_account_id" IS NOT NULL AND b."corporate_account_id" = NEW."corporate_account_id"));
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER "users_payment_method" BEFORE INSERT OR UPDATE OF "corporate_account_id" ON "users" FOR EACH ROW EXECUTE FUNCTION "users_payment_method"();
--> statement-breakpoint
CREATE FUNCTION "billing_accounts_payment_method"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."user_id" IS NOT NULL THEN
    UPDATE "users" SET "payment_method" = NEW."payment_method" WHERE "id" = NEW."user_id" AND "payment_method" IS DISTINCT FROM NEW."payment_method";
  ELSIF NEW."corporate_account_id" IS NOT NULL THEN
    UPDATE "users" u SET "payment_method" = NEW."payment_method"
     WHERE u."corporate_account_id" = NEW."corporate_account_id" AND u."payment_method" IS DISTINCT FROM NEW."payment_method"
       AND NOT EXISTS (SELECT 1 FROM "billing_accounts" b WHERE b."user_id" = u."id");
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER "billing_accounts_payment_method" AFTER INSERT OR UPDATE OF "payment_method" ON "billing_accounts" FOR EACH ROW EXECUTE FUNCTION "billing_accounts_payment_method"();
--> statement-breakpoint
UPDATE "users" u SET "payment_method" = coalesce(
  (SELECT b."payment_method" FROM "billing_accounts" b WHERE b."user_id" = u."id"),
  (SELECT b."payment_method" FROM "billing_accounts" b WHERE u."corporate_account_id" IS NOT NULL AND b."corporate_account_id" = u."corporate_account_id"));
