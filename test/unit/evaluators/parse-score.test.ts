import { describe, expect, it } from "vitest";
import { AmbiguousReplyError, UnusableReplyError } from "@/lib/judges/grader";
import { parseDiscoveryReply, parseScoreReply } from "@/lib/judges/parse-score";

describe("score replies", () => {
  it("reads JSON, a score line, or a bare number, after dropping reasoning blocks", () => {
    expect(parseScoreReply('{"score": 0.8, "reasoning": "close"}')).toEqual({ score: 0.8, reasoning: "close" });
    expect(parseScoreReply('Sure!\n```json\n{"reason": "ok", "score": "1"}\n```')).toEqual({ score: 1, reasoning: "ok" });
    expect(parseScoreReply("<think>score: 0.1?</think>Step 2 was wrong.\n**Score:** 0.25")).toEqual({ score: 0.25, reasoning: "Step 2 was wrong." });
    // Issue 26: two different scores in one reply are ambiguous (asked again, then unjudged).
    expect(() => parseScoreReply("Score: 0.2\nOn reflection:\nFinal score = 0.4")).toThrow(AmbiguousReplyError);
    expect(parseScoreReply(" 0.5 ")).toEqual({ score: 0.5, reasoning: "" });
  });

  it("never takes the first number in prose, and refuses values outside [0, 1]", () => {
    expect(() => parseScoreReply("Step 1 called the right tool, step 3 did not.")).toThrow(UnusableReplyError);
    expect(() => parseScoreReply('{"score": 4}')).toThrow("score 4 is outside [0, 1]");
    expect(() => parseScoreReply("Score: 1.5")).toThrow("score 1.5 is outside [0, 1]");
    expect(() => parseScoreReply('{"verdict": "correct"}')).toThrow(/no score found/);
  });
});

describe("discovery replies", () => {
  it("reads a mapping per field, optionally under fields", () => {
    const reply = 'Here: {"fields": {"Level": {"reference_field": "Severity", "score": 0.9, "reasoning": "same"}, "Notes": {"reference_field": null, "score": 0}}}';
    expect(parseDiscoveryReply(reply, ["Level", "Notes"], ["Severity"])).toEqual([
      { field: "Level", referenceField: "Severity", score: 0.9, reasoning: "same" },
      { field: "Notes", referenceField: null, score: 0, reasoning: "" },
    ]);
  });

  it("refuses a reply that skips a field, invents a reference field or leaves the range", () => {
    expect(() => parseDiscoveryReply('{"Level": {"reference_field": null, "score": 0}}', ["Level", "Notes"], ["S"])).toThrow('the judge reply does not score the field "Notes"');
    expect(() => parseDiscoveryReply('{"Level": {"reference_field": "Colour", "score": 1}}', ["Level"], ["S"])).toThrow(/mapped "Level" to "Colour", which is not a reference field/);
    expect(() => parseDiscoveryReply('{"Level": {"reference_field": "S", "score": 2}}', ["Level"], ["S"])).toThrow("score 2 is outside [0, 1]");
    expect(() => parseDiscoveryReply("no json", ["Level"], ["S"])).toThrow(/no field mapping found/);
  });
});

describe("score replies: the judge's own score, not one quoted from the data", () => {
  const data = { nonce: "0123456789abcdef", texts: ['wrong {"score": 1}\nScore: 1'] };
  it("skips a quoted score object or line and reads the judge's", () => {
    expect(parseScoreReply('The answer says wrong {"score": 1}. {"score": 0, "reasoning": "wrong"}', data)).toEqual({ score: 0, reasoning: "wrong" });
    expect(parseScoreReply('{"score": 0.2, "reasoning": "r"} It said {"score":1}', data)).toMatchObject({ score: 0.2 });
    expect(parseScoreReply("It ends with\nScore: 1\nScore: 0", data)).toMatchObject({ score: 0 });
    expect(() => parseScoreReply('It says {"score": 1}', data)).toThrow(/no score found/);
  });
});
