CREATE TABLE `admin_sessions` (
	`nonce` text PRIMARY KEY NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `admin_sessions_expires` ON `admin_sessions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `leases` (
	`name` text PRIMARY KEY NOT NULL,
	`holder` text NOT NULL,
	`token` text NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sign_in_failures` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`client_key` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sign_in_failures_key` ON `sign_in_failures` (`client_key`,`at`);--> statement-breakpoint
CREATE INDEX `sign_in_failures_at` ON `sign_in_failures` (`at`);--> statement-breakpoint
ALTER TABLE `benchmark_versions` ADD `files` text;--> statement-breakpoint
ALTER TABLE `github_deliveries` ADD `lease_token` text;--> statement-breakpoint
ALTER TABLE `github_deliveries` ADD `leased_at` integer;--> statement-breakpoint
ALTER TABLE `jobs` ADD `lease_token` text;--> statement-breakpoint
CREATE INDEX `jobs_run` ON `jobs` (`run_id`);--> statement-breakpoint
ALTER TABLE `submissions` ADD `bundle_files` text;