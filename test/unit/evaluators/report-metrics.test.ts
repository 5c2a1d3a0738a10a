import { describe, expect, it } from "vitest";
import { exactMatch, fieldText, nonEmpty, regexFullMatch, tokenF1, wordTokens } from "@/lib/judges/report-metrics";

describe("exact_match", () => {
  it("normalises whitespace only: case and punctuation still count", () => {
    expect(exactMatch("  cam-07 \n", "cam-07")).toBe(1);
    expect(exactMatch("white   box\ttruck", "white box truck")).toBe(1);
    expect(exactMatch("Cam-07", "cam-07")).toBe(0);
    expect(exactMatch("cam-07.", "cam-07")).toBe(0);
  });

  it("treats both empty as equal and one empty as different", () => {
    expect(exactMatch("", "  ")).toBe(1);
    expect(exactMatch("", "x")).toBe(0);
    expect(exactMatch("x", "")).toBe(0);
  });
});

describe("f1", () => {
  it("splits lowercased words on punctuation", () => {
    expect(wordTokens("Worker's path, Bay-2!")).toEqual(["worker", "s", "path", "bay", "2"]);
    expect(tokenF1("FORKLIFT, white box-truck", "forklift white box truck")).toBe(1);
  });

  it("counts tokens as sets, as NAT does", () => {
    // actual {white, box, truck, red} (4); reference {red, flatbed, truck, white, box, forklift} (6).
    // Common 4 → P 1, R 4/6, F1 = 0.8.
    expect(tokenF1("white box truck, red truck", "red flatbed truck, white box truck, forklift")).toBeCloseTo(0.8, 10);
    // The example: upstream 1.0 (a bag would give 0.8).
    expect(tokenF1("white white truck", "white truck")).toBe(1);
    expect(tokenF1("truck truck", "truck")).toBe(1);
  });

  it("is 1 when both sides have no tokens, 0 when only one has", () => {
    expect(tokenF1("", "")).toBe(1);
    expect(tokenF1("...", " - ")).toBe(1);
    expect(tokenF1("", "truck")).toBe(0);
    expect(tokenF1("truck", "?!")).toBe(0);
    expect(tokenF1("van", "truck")).toBe(0);
  });
});

describe("regex", () => {
  it("needs the whole value to match", () => {
    expect(regexFullMatch("08:43", "08:4\\d")).toEqual({ ok: true, score: 1 });
    expect(regexFullMatch("at 08:43", "08:4\\d")).toEqual({ ok: true, score: 0 });
    expect(regexFullMatch("08:43 am", "08:4\\d")).toEqual({ ok: true, score: 0 });
    // Alternation is anchored as a whole, not just its first branch.
    expect(regexFullMatch("xb", "a|b")).toEqual({ ok: true, score: 0 });
    expect(regexFullMatch("b", "a|b")).toEqual({ ok: true, score: 1 });
  });

  it("translates Python's named groups", () => {
    expect(regexFullMatch("12-12", "(?P<n>\\d+)-(?P=n)")).toEqual({ ok: true, score: 1 });
    expect(regexFullMatch("12-13", "(?P<n>\\d+)-(?P=n)")).toEqual({ ok: true, score: 0 });
  });

  it("handles empty values: an empty pattern matches only an empty value", () => {
    expect(regexFullMatch("", "")).toEqual({ ok: true, score: 1 });
    expect(regexFullMatch("x", "")).toEqual({ ok: true, score: 0 });
    expect(regexFullMatch("", "\\d+")).toEqual({ ok: true, score: 0 });
  });

  it("reports an invalid pattern as an error instead of throwing", () => {
    const r = regexFullMatch("08:43", "08:(4");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/^invalid regular expression "08:\(4"/);
  });
});

describe("non_empty", () => {
  it("scores 1 for any non-blank value", () => {
    expect(nonEmpty("x")).toBe(1);
    expect(nonEmpty(" \n\t")).toBe(0);
    expect(nonEmpty("")).toBe(0);
  });
});

describe("fieldText", () => {
  it("renders values as Python's str(): absent and null as empty", () => {
    expect(fieldText(undefined)).toBe("");
    expect(fieldText(null)).toBe("");
    expect(fieldText(3)).toBe("3");
    expect(fieldText(false)).toBe("False");
    expect(fieldText(["a", "b"])).toBe("['a', 'b']");
    expect(fieldText({ n: 1.5 })).toBe("{'n': 1.5}");
  });
});
