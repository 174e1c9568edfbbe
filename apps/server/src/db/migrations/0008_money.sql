CREATE TABLE "audit_logs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"occurred_at" timestamp with time zone DEFAULT now() NOT NULL,
	"actor_id" uuid,
	"actor_email" text,
	"action" text NOT NULL,
	"target_type" text NOT NULL,
	"target_id" text NOT NULL,
	"before" jsonb,
	"after" jsonb,
	"ip" text,
	"request_id" text
);
--> statement-breakpoint
CREATE TABLE "billing_accounts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"kind" text NOT NULL,
	"user_id" uuid,
	"corporate_account_id" uuid,
	"customer_number" text NOT NULL,
	"addressee" text NOT NULL,
	"honorific" text NOT NULL,
	"postal_code" text,
	"address" text,
	"billing_emails" text[] DEFAULT '{}'::text[] NOT NULL,
	"payment_method" text DEFAULT 'card' NOT NULL,
	"stripe_customer_id" text,
	"card_payment_method_id" text,
	"card_brand" text,
	"card_last4" text,
	"card_exp_month" integer,
	"card_exp_year" integer,
	"credit_yen" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "billing_accounts_owner" CHECK (("billing_accounts"."kind" = 'individual' AND "billing_accounts"."user_id" IS NOT NULL AND "billing_accounts"."corporate_account_id" IS NULL) OR ("billing_accounts"."kind" = 'corporate' AND "billing_accounts"."corporate_account_id" IS NOT NULL AND "billing_accounts"."user_id" IS NULL)),
	CONSTRAINT "billing_accounts_credit" CHECK ("billing_accounts"."credit_yen" >= 0)
);
--> statement-breakpoint
CREATE TABLE "budget_alerts" (
	"billing_account_id" uuid NOT NULL,
	"year_month" text NOT NULL,
	"threshold_pct" integer NOT NULL,
	"sent_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "budget_alerts_billing_account_id_year_month_threshold_pct_pk" PRIMARY KEY("billing_account_id","year_month","threshold_pct")
);
--> statement-breakpoint
CREATE TABLE "budgets" (
	"billing_account_id" uuid PRIMARY KEY NOT NULL,
	"monthly_limit_yen" bigint NOT NULL,
	"hard_stop" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "budgets_limit" CHECK ("budgets"."monthly_limit_yen" > 0)
);
--> statement-breakpoint
CREATE TABLE "corporate_accounts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"status" text NOT NULL,
	"company_name" text NOT NULL,
	"company_name_kana" text NOT NULL,
	"department" text,
	"postal_code" text NOT NULL,
	"address" text NOT NULL,
	"phone" text NOT NULL,
	"billing_contact_name" text NOT NULL,
	"billing_emails" text[] NOT NULL,
	"corporate_number" text,
	"registration_number" text,
	"payment_method" text NOT NULL,
	"credit_limit_yen" bigint,
	"payment_terms" text DEFAULT 'month_end_next_month' NOT NULL,
	"applied_by" uuid,
	"decided_by" uuid,
	"decided_at" timestamp with time zone,
	"status_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "invoice_lines" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"invoice_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"kind" text NOT NULL,
	"dataset_id" uuid,
	"description" text NOT NULL,
	"quantity" bigint NOT NULL,
	"unit_price_sen" bigint NOT NULL,
	"amount_yen" bigint NOT NULL,
	"tax_rate_bp" integer DEFAULT 1000 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "invoices" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"billing_account_id" uuid NOT NULL,
	"kind" text DEFAULT 'monthly' NOT NULL,
	"year_month" text NOT NULL,
	"number" text,
	"status" text DEFAULT 'draft' NOT NULL,
	"period_start" date NOT NULL,
	"period_end" date NOT NULL,
	"issue_date" date,
	"due_date" date,
	"subtotal_yen" bigint NOT NULL,
	"tax_yen" bigint NOT NULL,
	"total_yen" bigint NOT NULL,
	"credit_applied_yen" bigint DEFAULT 0 NOT NULL,
	"paid_yen" bigint DEFAULT 0 NOT NULL,
	"payment_method" text NOT NULL,
	"issuer_snapshot" jsonb NOT NULL,
	"recipient_snapshot" jsonb NOT NULL,
	"pdf_sha256" text,
	"payment_attempts" integer DEFAULT 0 NOT NULL,
	"next_retry_at" timestamp with time zone,
	"last_payment_error" text,
	"stripe_payment_intent_id" text,
	"pay_now_url" text,
	"provider_state_at" bigint,
	"void_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"issued_at" timestamp with time zone,
	"paid_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "invoices_amounts" CHECK ("invoices"."subtotal_yen" >= 0 AND "invoices"."tax_yen" >= 0 AND "invoices"."total_yen" = "invoices"."subtotal_yen" + "invoices"."tax_yen" AND "invoices"."paid_yen" >= 0 AND "invoices"."credit_applied_yen" >= 0)
);
--> statement-breakpoint
CREATE TABLE "number_counters" (
	"series" text PRIMARY KEY NOT NULL,
	"last_number" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"invoice_id" uuid NOT NULL,
	"billing_account_id" uuid NOT NULL,
	"method" text NOT NULL,
	"amount_yen" bigint NOT NULL,
	"fee_yen" bigint DEFAULT 0 NOT NULL,
	"received_on" date NOT NULL,
	"payer_name" text,
	"note" text,
	"stripe_payment_intent_id" text,
	"receipt_number" text NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payments_amounts" CHECK ("payments"."amount_yen" >= 0 AND "payments"."fee_yen" >= 0)
);
--> statement-breakpoint
CREATE TABLE "provider_events" (
	"id" text PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"provider_created" bigint NOT NULL,
	"object_id" text,
	"processed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "corporate_account_id" uuid;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "corporate_role" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "status_reason" text;--> statement-breakpoint
ALTER TABLE "invoice_lines" ADD CONSTRAINT "invoice_lines_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_logs_occurred_idx" ON "audit_logs" USING btree ("occurred_at");--> statement-breakpoint
CREATE INDEX "audit_logs_target_idx" ON "audit_logs" USING btree ("target_type","target_id","occurred_at");--> statement-breakpoint
CREATE INDEX "audit_logs_actor_idx" ON "audit_logs" USING btree ("actor_id","occurred_at");--> statement-breakpoint
CREATE UNIQUE INDEX "billing_accounts_customer_number_key" ON "billing_accounts" USING btree ("customer_number");--> statement-breakpoint
CREATE UNIQUE INDEX "billing_accounts_user_key" ON "billing_accounts" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "billing_accounts_corporate_key" ON "billing_accounts" USING btree ("corporate_account_id");--> statement-breakpoint
CREATE INDEX "corporate_accounts_status_idx" ON "corporate_accounts" USING btree ("status","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "invoice_lines_position_key" ON "invoice_lines" USING btree ("invoice_id","position");--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_monthly_key" ON "invoices" USING btree ("billing_account_id","year_month") WHERE "invoices"."kind" = 'monthly';--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_number_key" ON "invoices" USING btree ("number");--> statement-breakpoint
CREATE INDEX "invoices_account_idx" ON "invoices" USING btree ("billing_account_id","issue_date");--> statement-breakpoint
CREATE INDEX "invoices_status_idx" ON "invoices" USING btree ("status","due_date");--> statement-breakpoint
CREATE INDEX "payments_invoice_idx" ON "payments" USING btree ("invoice_id");--> statement-breakpoint
CREATE UNIQUE INDEX "payments_receipt_key" ON "payments" USING btree ("receipt_number");--> statement-breakpoint
CREATE UNIQUE INDEX "payments_intent_key" ON "payments" USING btree ("stripe_payment_intent_id");--> statement-breakpoint
CREATE INDEX "users_corporate_idx" ON "users" USING btree ("corporate_account_id");--> statement-breakpoint
-- An issued invoice is immutable (BILLING.md): its number, period, amounts and snapshots never
-- change and it is never deleted; its lines neither. Status and payment columns still move.
CREATE FUNCTION "invoices_issued_immutable"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF OLD."number" IS NOT NULL THEN
      RAISE EXCEPTION 'issued invoice % cannot be deleted', OLD."number" USING ERRCODE = 'check_violation';
    END IF;
    RETURN OLD;
  END IF;
  IF OLD."number" IS NOT NULL AND (
    NEW."number" IS DISTINCT FROM OLD."number" OR NEW."billing_account_id" IS DISTINCT FROM OLD."billing_account_id"
    OR NEW."year_month" IS DISTINCT FROM OLD."year_month" OR NEW."period_start" IS DISTINCT FROM OLD."period_start"
    OR NEW."period_end" IS DISTINCT FROM OLD."period_end" OR NEW."issue_date" IS DISTINCT FROM OLD."issue_date"
    OR NEW."subtotal_yen" IS DISTINCT FROM OLD."subtotal_yen" OR NEW."tax_yen" IS DISTINCT FROM OLD."tax_yen"
    OR NEW."total_yen" IS DISTINCT FROM OLD."total_yen" OR NEW."credit_applied_yen" IS DISTINCT FROM OLD."credit_applied_yen"
    OR NEW."issuer_snapshot" IS DISTINCT FROM OLD."issuer_snapshot" OR NEW."recipient_snapshot" IS DISTINCT FROM OLD."recipient_snapshot"
    OR (OLD."pdf_sha256" IS NOT NULL AND NEW."pdf_sha256" IS DISTINCT FROM OLD."pdf_sha256")
  ) THEN
    RAISE EXCEPTION 'issued invoice % is immutable', OLD."number" USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER "invoices_issued_immutable" BEFORE UPDATE OR DELETE ON "invoices" FOR EACH ROW EXECUTE FUNCTION "invoices_issued_immutable"();
--> statement-breakpoint
CREATE FUNCTION "invoice_lines_issued_immutable"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM "invoices" WHERE "id" = COALESCE(NEW."invoice_id", OLD."invoice_id") AND "number" IS NOT NULL)
     OR (TG_OP = 'UPDATE' AND EXISTS (SELECT 1 FROM "invoices" WHERE "id" = OLD."invoice_id" AND "number" IS NOT NULL)) THEN
    RAISE EXCEPTION 'lines of an issued invoice are immutable' USING ERRCODE = 'check_violation';
  END IF;
  IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER "invoice_lines_issued_immutable" BEFORE INSERT OR UPDATE OR DELETE ON "invoice_lines" FOR EACH ROW EXECUTE FUNCTION "invoice_lines_issued_immutable"();
