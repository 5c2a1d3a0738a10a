-- A waterfall item whose last scored turn had no prediction (stage none) ended nowhere in the
-- funnel: it was filed under "groundedness failed". It belongs with the items not scored.
UPDATE `item_results` SET `bucket` = 'not_scored' WHERE `scorer` = 'waterfall' AND `status` = 'scored' AND `stage` = 'none';--> statement-breakpoint
UPDATE `item_results` SET `result` = json_set(`result`, '$.bucket', 'not_scored') WHERE `scorer` = 'waterfall' AND `status` = 'scored' AND `stage` = 'none' AND json_valid(`result`);
