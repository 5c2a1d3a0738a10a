CREATE TABLE `audit_log` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` integer NOT NULL,
	`actor` text NOT NULL,
	`action` text NOT NULL,
	`submission_id` integer,
	`from_state` text,
	`to_state` text,
	`reason` text DEFAULT '' NOT NULL,
	`details` text,
	FOREIGN KEY (`submission_id`) REFERENCES `submissions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `audit_log_submission` ON `audit_log` (`submission_id`);--> statement-breakpoint
CREATE TABLE `benchmark_versions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`benchmark_id` integer NOT NULL,
	`version` text NOT NULL,
	`root` text NOT NULL,
	`spec` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`benchmark_id`) REFERENCES `benchmarks`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `benchmark_versions_unique` ON `benchmark_versions` (`benchmark_id`,`version`);--> statement-breakpoint
CREATE TABLE `benchmarks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`slug` text NOT NULL,
	`title` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`is_default` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `benchmarks_slug_unique` ON `benchmarks` (`slug`);--> statement-breakpoint
CREATE TABLE `capability_scores` (
	`run_id` integer NOT NULL,
	`capability` text NOT NULL,
	`score` real NOT NULL,
	`ci_low` real NOT NULL,
	`ci_high` real NOT NULL,
	`submitted` integer NOT NULL,
	`n_items` integer NOT NULL,
	`n_missing` integer NOT NULL,
	`n_error` integer NOT NULL,
	`n_policy_unchecked` integer NOT NULL,
	`status_counts` text NOT NULL,
	PRIMARY KEY(`run_id`, `capability`),
	FOREIGN KEY (`run_id`) REFERENCES `scoring_runs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `domain_scores` (
	`run_id` integer NOT NULL,
	`capability` text NOT NULL,
	`domain` text NOT NULL,
	`score` real NOT NULL,
	`n_items` integer NOT NULL,
	PRIMARY KEY(`run_id`, `capability`, `domain`),
	FOREIGN KEY (`run_id`) REFERENCES `scoring_runs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `item_results` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`run_id` integer NOT NULL,
	`capability` text NOT NULL,
	`domain` text NOT NULL,
	`uuid` text NOT NULL,
	`weight` real NOT NULL,
	`score` real NOT NULL,
	`status` text NOT NULL,
	`stage` text NOT NULL,
	`policy` text NOT NULL,
	`result` text NOT NULL,
	FOREIGN KEY (`run_id`) REFERENCES `scoring_runs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `item_results_unique` ON `item_results` (`run_id`,`capability`,`uuid`);--> statement-breakpoint
CREATE INDEX `item_results_filter` ON `item_results` (`run_id`,`capability`,`domain`,`stage`);--> statement-breakpoint
CREATE TABLE `jobs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`run_id` integer NOT NULL,
	`state` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`locked_by` text,
	`heartbeat_at` integer,
	`last_error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`run_id`) REFERENCES `scoring_runs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `jobs_state` ON `jobs` (`state`);--> statement-breakpoint
CREATE TABLE `judge_verdicts` (
	`key` text PRIMARY KEY NOT NULL,
	`pass` integer NOT NULL,
	`score` real NOT NULL,
	`explanation` text NOT NULL,
	`prompt_hash` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `scoring_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`submission_id` integer NOT NULL,
	`judge_kind` text NOT NULL,
	`judge_model` text,
	`judge_id` text,
	`replay_mode` text NOT NULL,
	`verified` integer DEFAULT false NOT NULL,
	`status` text NOT NULL,
	`progress_done` integer DEFAULT 0 NOT NULL,
	`progress_total` integer DEFAULT 0 NOT NULL,
	`overall_score` real,
	`overall_ci_low` real,
	`overall_ci_high` real,
	`complete` integer,
	`error` text,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer,
	FOREIGN KEY (`submission_id`) REFERENCES `submissions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `scoring_runs_submission` ON `scoring_runs` (`submission_id`);--> statement-breakpoint
CREATE TABLE `submissions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`benchmark_version_id` integer NOT NULL,
	`agent_name` text NOT NULL,
	`models` text NOT NULL,
	`maintainer` text DEFAULT '' NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`links` text NOT NULL,
	`source` text NOT NULL,
	`source_ref` text NOT NULL,
	`bundle_path` text NOT NULL,
	`bundle_sha256` text NOT NULL,
	`is_demo` integer DEFAULT false NOT NULL,
	`state` text NOT NULL,
	`validation_report` text,
	`current_run_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`benchmark_version_id`) REFERENCES `benchmark_versions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `submissions_bundle_unique` ON `submissions` (`benchmark_version_id`,`bundle_sha256`);--> statement-breakpoint
CREATE INDEX `submissions_state` ON `submissions` (`state`);