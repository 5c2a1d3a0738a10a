CREATE TABLE `grade_cache` (
	`key` text PRIMARY KEY NOT NULL,
	`grade` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
DROP TABLE `judge_verdicts`;--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_item_results` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`run_id` integer NOT NULL,
	`capability` text NOT NULL,
	`domain` text NOT NULL,
	`uuid` text NOT NULL,
	`weight` real NOT NULL,
	`score` real NOT NULL,
	`status` text NOT NULL,
	`stage` text NOT NULL,
	`scorer` text DEFAULT 'waterfall' NOT NULL,
	`bucket` text DEFAULT 'not_scored' NOT NULL,
	`exact_passed` integer DEFAULT false NOT NULL,
	`policy` text,
	`result` text NOT NULL,
	FOREIGN KEY (`run_id`) REFERENCES `scoring_runs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
-- Rows scored before this migration: the scorer, funnel bucket and exact-match flag are
-- derived once here from the stored result, as the engine now computes them; verdict
-- explanations that could quote the ground truth (exact, correctness) become private detail.
INSERT INTO `__new_item_results`("id", "run_id", "capability", "domain", "uuid", "weight", "score", "status", "stage", "scorer", "bucket", "exact_passed", "policy", "result")
SELECT "id", "run_id", "capability", "domain", "uuid", "weight", "score", "status", "stage", s."scorer",
  CASE WHEN "status" <> 'scored' THEN 'not_scored' WHEN s."scorer" <> 'waterfall' THEN 'evaluated' WHEN "stage" = 'policy' THEN 'policy'
       WHEN "stage" = 'correctness' AND "score" = 0 THEN 'correctness_failed' WHEN "score" > 0 THEN 'passed' ELSE 'groundedness_failed' END,
  EXISTS (SELECT 1 FROM json_each("result", '$.verdicts') v WHERE json_extract(v.value, '$.stage') = 'exact' AND json_extract(v.value, '$.outcome') = 'pass'),
  CASE WHEN s."scorer" = 'waterfall' THEN "policy" ELSE NULL END,
  json_set("result",
    '$.scorer', s."scorer",
    '$.reason', CASE WHEN "status" IN ('missing', 'agent_error', 'replay_error') THEN COALESCE(json_extract("result", '$.detail'), '') ELSE '' END,
    '$.detail', json_extract("result", '$.detail'),
    '$.verdicts', (SELECT json_group_array(json_set(json_remove(v.value, '$.explanation'),
        '$.reason', CASE WHEN json_extract(v.value, '$.stage') IN ('policy', 'groundedness') THEN json_extract(v.value, '$.explanation') ELSE json_extract(v.value, '$.stage') || ': ' || json_extract(v.value, '$.outcome') END,
        '$.detail', CASE WHEN json_extract(v.value, '$.stage') IN ('policy', 'groundedness') THEN NULL ELSE json_extract(v.value, '$.explanation') END))
      FROM json_each("result", '$.verdicts') v))
FROM `item_results` JOIN (SELECT "id" AS "sid", (CASE WHEN "stage" IN ('qa', 'trajectory', 'report') THEN "stage" WHEN json_extract("result", '$.evaluation.kind') IS NOT NULL THEN json_extract("result", '$.evaluation.kind') ELSE 'waterfall' END) AS "scorer" FROM `item_results`) s ON s."sid" = `item_results`."id";--> statement-breakpoint
DROP TABLE `item_results`;--> statement-breakpoint
ALTER TABLE `__new_item_results` RENAME TO `item_results`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `item_results_unique` ON `item_results` (`run_id`,`capability`,`uuid`);--> statement-breakpoint
CREATE INDEX `item_results_filter` ON `item_results` (`run_id`,`capability`,`domain`,`stage`);--> statement-breakpoint
ALTER TABLE `scoring_runs` ADD `judge` text;