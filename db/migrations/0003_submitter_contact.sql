ALTER TABLE `submissions` ADD `contact` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `submissions` ADD `agent_type` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `submissions` ADD `notes` text DEFAULT '' NOT NULL;