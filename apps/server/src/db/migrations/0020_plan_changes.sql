-- Leaving a plan (docs/billing.md "Cancel and downgrade"): an individual schedules the return to
-- trial at the start of the next Japan-time month (withdrawable until then, applied by the
-- plan-changes job), and a corporate owner files a cancellation request that an administrator
-- processes. No foreign keys to users, as on the other money tables: these rows are kept with the
-- billing records whatever happens to the user.
CREATE TABLE "plan_changes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"from_type" text NOT NULL,
	"to_type" text NOT NULL,
	"effective_at" timestamp with time zone NOT NULL,
	"status" text DEFAULT 'scheduled' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_at" timestamp with time zone,
	CONSTRAINT "plan_changes_status_check" CHECK ("status" IN ('scheduled', 'withdrawn', 'applied', 'obsolete'))
);--> statement-breakpoint
CREATE UNIQUE INDEX "plan_changes_one_scheduled_idx" ON "plan_changes" ("user_id") WHERE "status" = 'scheduled';--> statement-breakpoint
CREATE INDEX "plan_changes_due_idx" ON "plan_changes" ("effective_at") WHERE "status" = 'scheduled';--> statement-breakpoint
CREATE TABLE "corporate_cancellation_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"corporate_account_id" uuid NOT NULL,
	"requested_by" uuid NOT NULL,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE UNIQUE INDEX "corporate_cancellation_requests_account_idx" ON "corporate_cancellation_requests" ("corporate_account_id");
