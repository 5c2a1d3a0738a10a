ALTER TABLE "submissions" ADD COLUMN "bundle_received_at" bigint;--> statement-breakpoint
-- The current bundle was received at the latest revision that replaced it, else when the submission was made.
UPDATE "submissions" SET "bundle_received_at" = COALESCE((SELECT max("at") FROM "audit_log" WHERE "audit_log"."submission_id" = "submissions"."id" AND "audit_log"."action" = 'revision'), "created_at");
