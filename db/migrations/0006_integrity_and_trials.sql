DROP INDEX `item_results_unique`;--> statement-breakpoint
ALTER TABLE `item_results` ADD `trial` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `item_results` ADD `fingerprint` text;--> statement-breakpoint
CREATE INDEX `item_results_fingerprint` ON `item_results` (`fingerprint`);--> statement-breakpoint
CREATE UNIQUE INDEX `item_results_unique` ON `item_results` (`run_id`,`capability`,`uuid`,`trial`);--> statement-breakpoint
ALTER TABLE `scoring_runs` ADD `manifest` text;--> statement-breakpoint
ALTER TABLE `scoring_runs` ADD `flags` text;--> statement-breakpoint
ALTER TABLE `scoring_runs` ADD `trials` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `scoring_runs` ADD `trial_stats` text;