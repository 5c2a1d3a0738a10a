/** The outcome vocabulary: every status and deciding stage has one term, one wording and one counts-as value, and the glossary in docs/scoring.md says the same. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ITEM_STAGES, ITEM_STATUSES } from "@/lib/scoring/item-result";
import { countLabel, OUTCOME_TERMS, outcomeGlossary, outcomeIdOf, outcomeOf, statusCountParts } from "@/lib/scoring/outcome";

describe("outcomeOf", () => {
  it("names a scored item after the stage that decided it, with pass or fail wording", () => {
    expect(outcomeOf({ status: "scored", stage: "groundedness", score: 1 })).toMatchObject({ text: "Passed · groundedness", verdict: "passed", counts: 1 });
    expect(outcomeOf({ status: "scored", stage: "correctness", score: 0 })).toMatchObject({ text: "Lost at correctness", verdict: "lost", counts: 0 });
    expect(outcomeOf({ status: "scored", stage: "policy", score: 0 }).text).toBe("Lost at policy");
    expect(outcomeOf({ status: "scored", stage: "report", score: 0.6 })).toMatchObject({ text: "Partial · report evaluator", verdict: "partial", counts: 0.6 });
    // Full marks as pass^k and /compare count them: within 1e-9 of 1.
    expect(outcomeOf({ status: "scored", stage: "report", score: 1 - 1e-12 })).toMatchObject({ text: "Passed · report evaluator", verdict: "passed" });
    expect(outcomeOf({ status: "scored", stage: "none", score: 0 })).toMatchObject({ text: "Lost at the missing turn", term: { id: "missing_turn" } });
  });

  it("says what an item that was not scored counts as, whatever stage it reached", () => {
    expect(outcomeOf({ status: "agent_error", stage: "qa", score: 0 })).toMatchObject({ text: "Agent error · counts 0", counts: 0, term: { id: "agent_error", countsAs: "0" } });
    expect(outcomeOf({ status: "missing", stage: "none", score: 0 }).text).toBe("Missing · counts 0");
    expect(outcomeOf({ status: "replay_error", stage: "none", score: 0 }).text).toBe("Replay error · counts 0");
    expect(outcomeOf({ status: "judge_error", stage: "correctness", score: 0 }).text).toBe("Judge error · counts 0");
  });

  it("has a term for every status and every stage", () => {
    const ids = new Set(OUTCOME_TERMS.map((t) => t.id));
    for (const status of ITEM_STATUSES) for (const stage of ITEM_STAGES) expect(ids.has(outcomeIdOf({ status, stage })), `${status}/${stage}`).toBe(true);
    expect(ids.size).toBe(OUTCOME_TERMS.length);
  });
});

describe("counts", () => {
  it("keeps agent errors apart from judge and replay errors", () => {
    expect(statusCountParts({ scored: 20, agent_error: 4 })).toEqual(["4 agent errors"]);
    expect(statusCountParts({ missing: 3, judge_error: 1, replay_error: 2, agent_error: 1 })).toEqual(["3 missing", "1 agent error", "2 replay errors", "1 judge error"]);
    expect(countLabel("missing", 1)).toBe("1 missing");
    expect(countLabel("agent_error", 1200)).toBe("1,200 agent errors");
  });
});

describe("the glossary in docs/scoring.md", () => {
  const doc = readFileSync(path.resolve(import.meta.dirname, "../../../docs/scoring.md"), "utf8");

  it("is the table the vocabulary generates", () => {
    expect(doc).toContain(outcomeGlossary());
  });

  it("lists every term with its counts-as value, under Outcomes", () => {
    const at = doc.indexOf("\n## Outcomes\n");
    expect(at, "docs/scoring.md has an \"## Outcomes\" section").toBeGreaterThanOrEqual(0);
    const section = doc.slice(at);
    for (const t of OUTCOME_TERMS) expect(section, t.id).toContain(`| ${t.label} | \`${t.id}\` | ${t.meaning} | ${t.countsAs} |`);
  });
});
