-- Void, credit notes (適格返還請求書) and write-off of issued invoices (docs/billing.md "Void,
-- credit notes and write-off"): the invoice columns these operations move, the credit_notes table
-- (immutable once written, like an issued invoice), and a harder immutability trigger: due_date
-- and payment_method are printed on the PDF, so they freeze at issue too, and TRUNCATE of the
-- money documents is refused (a row trigger does not fire on TRUNCATE).
ALTER TABLE "invoices" ADD COLUMN "credited_yen" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "voided_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "written_off_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "write_off_reason" text;
--> statement-breakpoint
-- credited_yen is the sum of the invoice's credit notes: never more than the invoice total.
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_credited" CHECK ("credited_yen" >= 0 AND "credited_yen" <= "total_yen");
--> statement-breakpoint
CREATE TABLE "credit_notes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"number" text NOT NULL,
	"invoice_id" uuid NOT NULL REFERENCES "invoices"("id") ON DELETE RESTRICT,
	"billing_account_id" uuid NOT NULL,
	"issue_date" date NOT NULL,
	"amount_yen" bigint NOT NULL,
	"subtotal_yen" bigint NOT NULL,
	"tax_yen" bigint NOT NULL,
	"tax_rate_bp" integer DEFAULT 1000 NOT NULL,
	"applied_to_invoice_yen" bigint NOT NULL,
	"credited_to_account_yen" bigint NOT NULL,
	"description" text NOT NULL,
	"reason" text NOT NULL,
	"issuer_snapshot" jsonb NOT NULL,
	"recipient_snapshot" jsonb NOT NULL,
	"pdf_sha256" text,
	"created_by" uuid,
	"request_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "credit_notes_amounts" CHECK ("amount_yen" >= 1 AND "subtotal_yen" >= 0 AND "tax_yen" >= 0 AND "subtotal_yen" + "tax_yen" = "amount_yen"
		AND "applied_to_invoice_yen" >= 0 AND "credited_to_account_yen" >= 0 AND "applied_to_invoice_yen" + "credited_to_account_yen" = "amount_yen")
);
--> statement-breakpoint
CREATE UNIQUE INDEX "credit_notes_number_key" ON "credit_notes" ("number");
--> statement-breakpoint
CREATE INDEX "credit_notes_invoice_idx" ON "credit_notes" ("invoice_id", "created_at");
--> statement-breakpoint
-- The admin console's id for one submission: the same id again answers the note it issued.
CREATE UNIQUE INDEX "credit_notes_request_key" ON "credit_notes" ("request_id");
--> statement-breakpoint
-- A credit note never changes and is never deleted; only its PDF hash is stored once.
CREATE FUNCTION "credit_notes_immutable"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'credit note % cannot be deleted', OLD."number" USING ERRCODE = 'check_violation';
  END IF;
  IF (to_jsonb(NEW) - 'pdf_sha256') IS DISTINCT FROM (to_jsonb(OLD) - 'pdf_sha256')
     OR (OLD."pdf_sha256" IS NOT NULL AND NEW."pdf_sha256" IS DISTINCT FROM OLD."pdf_sha256") THEN
    RAISE EXCEPTION 'credit note % is immutable', OLD."number" USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER "credit_notes_immutable" BEFORE UPDATE OR DELETE ON "credit_notes" FOR EACH ROW EXECUTE FUNCTION "credit_notes_immutable"();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "invoices_issued_immutable"() RETURNS trigger LANGUAGE plpgsql AS $$
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
    OR NEW."due_date" IS DISTINCT FROM OLD."due_date" OR NEW."payment_method" IS DISTINCT FROM OLD."payment_method"
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
CREATE FUNCTION "money_documents_no_truncate"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% cannot be truncated: invoices, their lines, payments and credit notes are kept', TG_TABLE_NAME USING ERRCODE = 'check_violation';
END $$;
--> statement-breakpoint
CREATE TRIGGER "invoices_no_truncate" BEFORE TRUNCATE ON "invoices" FOR EACH STATEMENT EXECUTE FUNCTION "money_documents_no_truncate"();
--> statement-breakpoint
CREATE TRIGGER "invoice_lines_no_truncate" BEFORE TRUNCATE ON "invoice_lines" FOR EACH STATEMENT EXECUTE FUNCTION "money_documents_no_truncate"();
--> statement-breakpoint
CREATE TRIGGER "payments_no_truncate" BEFORE TRUNCATE ON "payments" FOR EACH STATEMENT EXECUTE FUNCTION "money_documents_no_truncate"();
--> statement-breakpoint
CREATE TRIGGER "credit_notes_no_truncate" BEFORE TRUNCATE ON "credit_notes" FOR EACH STATEMENT EXECUTE FUNCTION "money_documents_no_truncate"();
--> statement-breakpoint
-- A month's figures stay index-only now that what is owed subtracts the credited amount too.
DROP INDEX "invoices_month_figures_idx";
--> statement-breakpoint
CREATE INDEX "invoices_month_figures_idx" ON "invoices" USING btree ("year_month","kind","status","subtotal_yen","tax_yen","total_yen","paid_yen","credit_applied_yen","credited_yen");
