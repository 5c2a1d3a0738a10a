CREATE TABLE `grade_dispute_runs` (
	`key` text NOT NULL,
	`run_id` integer NOT NULL,
	PRIMARY KEY(`key`, `run_id`),
	FOREIGN KEY (`key`) REFERENCES `grade_disputes`(`key`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`run_id`) REFERENCES `scoring_runs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `grade_dispute_runs_run` ON `grade_dispute_runs` (`run_id`);--> statement-breakpoint
CREATE TABLE `grade_disputes` (
	`key` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`benchmark_version_id` integer NOT NULL,
	`capability` text NOT NULL,
	`rule` text NOT NULL,
	`request` text NOT NULL,
	`members` text NOT NULL,
	`created_at` integer NOT NULL,
	`decision_outcome` text,
	`decision_score` real,
	`decided_by` text,
	`decided_at` integer,
	`decision_reason` text,
	FOREIGN KEY (`benchmark_version_id`) REFERENCES `benchmark_versions`(`id`) ON UPDATE no action ON DELETE no action
);
