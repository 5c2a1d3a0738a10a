CREATE TABLE `github_deliveries` (
	`delivery_id` text PRIMARY KEY NOT NULL,
	`event` text NOT NULL,
	`payload` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`error` text,
	`received_at` integer NOT NULL,
	`processed_at` integer
);
--> statement-breakpoint
CREATE INDEX `github_deliveries_status` ON `github_deliveries` (`status`);--> statement-breakpoint
CREATE TABLE `github_issues` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`repo` text NOT NULL,
	`number` integer NOT NULL,
	`submission_id` integer,
	`author` text NOT NULL,
	`body_sha256` text,
	`zip_url` text,
	`comment_id` integer,
	`posted_hash` text,
	`problem` text,
	`last_comment_id` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`submission_id`) REFERENCES `submissions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `github_issues_unique` ON `github_issues` (`repo`,`number`);--> statement-breakpoint
CREATE INDEX `github_issues_submission` ON `github_issues` (`submission_id`);--> statement-breakpoint
ALTER TABLE `submissions` ADD `revision` integer DEFAULT 1 NOT NULL;