CREATE TABLE `judge_calibrations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`benchmark_version_id` integer NOT NULL,
	`judge_id` text NOT NULL,
	`prompt_digest` text NOT NULL,
	`endpoint` text NOT NULL,
	`n` integer NOT NULL,
	`accuracy` real,
	`accuracy_low` real,
	`accuracy_high` real,
	`kappa` real,
	`kappa_low` real,
	`kappa_high` real,
	`cases` integer NOT NULL,
	`unjudged` integer NOT NULL,
	`report` text NOT NULL,
	`calibrated_at` integer NOT NULL,
	`stored_at` integer NOT NULL,
	FOREIGN KEY (`benchmark_version_id`) REFERENCES `benchmark_versions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `judge_calibrations_key` ON `judge_calibrations` (`benchmark_version_id`,`judge_id`,`prompt_digest`);