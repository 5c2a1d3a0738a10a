CREATE TABLE "grade_dispute_runs" (
	"key" text NOT NULL,
	"run_id" integer NOT NULL,
	CONSTRAINT "grade_dispute_runs_key_run_id_pk" PRIMARY KEY("key","run_id")
);
--> statement-breakpoint
CREATE TABLE "grade_disputes" (
	"key" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"benchmark_version_id" integer NOT NULL,
	"capability" text NOT NULL,
	"rule" text NOT NULL,
	"request" text NOT NULL,
	"members" text NOT NULL,
	"created_at" bigint NOT NULL,
	"decision_outcome" text,
	"decision_score" double precision,
	"decided_by" text,
	"decided_at" bigint,
	"decision_reason" text
);
--> statement-breakpoint
ALTER TABLE "grade_dispute_runs" ADD CONSTRAINT "grade_dispute_runs_key_grade_disputes_key_fk" FOREIGN KEY ("key") REFERENCES "public"."grade_disputes"("key") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "grade_dispute_runs" ADD CONSTRAINT "grade_dispute_runs_run_id_scoring_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."scoring_runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "grade_disputes" ADD CONSTRAINT "grade_disputes_benchmark_version_id_benchmark_versions_id_fk" FOREIGN KEY ("benchmark_version_id") REFERENCES "public"."benchmark_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "grade_dispute_runs_run" ON "grade_dispute_runs" USING btree ("run_id");