import { describe, expect, it } from "vitest";
import {
  answerAtoms,
  answerText,
  atomNumber,
  containsPhrase,
  extractNumbers,
  isRefusal,
  namedValues,
  normaliseText,
  numbersMatch,
  numberToken,
  parseNumber,
} from "@/lib/judges/answer-values";

describe("answerAtoms / answerText", () => {
  it("returns nothing for null and blank strings", () => {
    expect(answerAtoms(null)).toEqual([]);
    expect(answerAtoms("  ")).toEqual([]);
    expect(answerText(null)).toBe("");
  });

  it("wraps a scalar", () => {
    expect(answerAtoms("Pommeau Noir")).toEqual(["Pommeau Noir"]);
    expect(answerAtoms(7)).toEqual([7]);
    expect(answerAtoms(false)).toEqual([false]);
    expect(answerText(41.5)).toBe("41.5");
    expect(answerText(true)).toBe("true");
  });

  it("takes the first column of result rows, as VAKRA flattens them", () => {
    expect(answerAtoms([["Blue Heron", 6], ["Red Kite", 4]])).toEqual(["Blue Heron", "Red Kite"]);
    expect(answerText([["Blue Heron", 6], ["Red Kite", 4]])).toBe("Blue Heron, Red Kite");
  });

  it("keeps every element of a flat list, dropping nulls and empty rows", () => {
    expect(answerAtoms([1, null, "a", [], ["row", 9]])).toEqual([1, "a", "row"]);
  });
});

describe("parseNumber / extractNumbers / numberToken", () => {
  it("records the decimals as written", () => {
    expect(parseNumber("41.25870")).toEqual({ value: 41.2587, decimals: 5 });
    expect(parseNumber("1,234,567")).toEqual({ value: 1234567, decimals: 0 });
    expect(parseNumber("-.5")).toEqual({ value: -0.5, decimals: 1 });
    expect(parseNumber("2.5e3")).toEqual({ value: 2500, decimals: 0 });
  });

  it("rejects non-numbers and infinities", () => {
    expect(parseNumber("abc")).toBeUndefined();
    expect(parseNumber("1,23")).toBeUndefined();
    expect(parseNumber("1e400")).toBeUndefined();
    expect(parseNumber("")).toBeUndefined();
  });

  it("finds numbers in prose, with separators, signs, percentages and sentence-final dots", () => {
    const found = extractNumbers("Totals: 1,234.5 and -3, then .25 and 1e3 at 12%; it is 7.");
    expect(found).toEqual([
      { value: 1234.5, decimals: 1 },
      { value: -3, decimals: 0 },
      { value: 0.25, decimals: 2 },
      { value: 1000, decimals: 0 },
      { value: 12, decimals: 0 },
      { value: 7, decimals: 0 },
    ]);
  });

  it("ignores digits glued to words", () => {
    expect(extractNumbers("model abc123 and x2")).toEqual([]);
  });

  it("numberToken keeps a JS number's written precision", () => {
    expect(numberToken(41.26)).toEqual({ value: 41.26, decimals: 2 });
    expect(numberToken(7)).toEqual({ value: 7, decimals: 0 });
  });
});

describe("numbersMatch", () => {
  const n = (s: string) => parseNumber(s)!;
  it.each([
    ["41.26", "41.2587", true],
    ["41.3", "41.2587", false],
    ["41.25870", "41.2587", true],
    ["41.259", "41.2587", true],
    ["41.2", "41.2587", false],
    ["0.5", "0.5", true],
    ["0.50", "0.5", true],
    ["0.6", "0.5", false],
    ["7.0", "7", true],
    ["8", "7", false],
    ["3.14", "3.14159", true],
    ["3.1", "3.1", true],
    // Binary floats cannot hold 1.005 exactly; rounding by distance still accepts "1.01".
    ["1.01", "1.005", true],
    ["1.00", "1.005", true],
    ["1.02", "1.005", false],
    ["0.30000000000000004", "0.3", true],
    ["-2.50", "-2.5", true],
    ["-2.4", "-2.45", false],
  ])("pred %s vs ref %s -> %s", (pred, ref, expected) => {
    expect(numbersMatch(n(pred), n(ref))).toBe(expected);
  });
});

describe("text normalisation", () => {
  it("lower-cases, strips accents and punctuation, pads with spaces", () => {
    expect(normaliseText("Crème Brûlée, Inc.!")).toBe(" creme brulee inc ");
    expect(normaliseText("  41.26%  of  SALES. ")).toBe(" 41.26% of sales ");
  });

  it("containsPhrase matches whole words only", () => {
    const hay = normaliseText("The cellar holds Pommeau Noir and Noirette.");
    expect(containsPhrase(hay, "pommeau noir")).toBe(true);
    expect(containsPhrase(hay, "Noir")).toBe(true);
    expect(containsPhrase(hay, "Noire")).toBe(false);
    expect(containsPhrase(hay, "  !! ")).toBe(false);
  });

  it("atomNumber reads numbers and numeric strings only", () => {
    expect(atomNumber("7")).toEqual({ value: 7, decimals: 0 });
    expect(atomNumber(7.5)).toEqual({ value: 7.5, decimals: 1 });
    expect(atomNumber("seven")).toBeUndefined();
    expect(atomNumber(true)).toBeUndefined();
  });
});

describe("isRefusal", () => {
  it.each([
    ["I can't find any matching records.", true],
    ["I am unable to answer that.", true],
    ["No results were found.", true],
    ["That cannot be answered from the data.", true],
    ["Insufficient data.", true],
    ["The data shows 7 results.", false],
    ["No, the answer is 7.", false],
  ])("%j -> %s", (text, expected) => {
    expect(isRefusal(text)).toBe(expected);
  });
});

describe("namedValues", () => {
  it("finds capitalised runs and drops sentence-initial function words", () => {
    expect(namedValues("The strongest is Pommeau Noir.")).toEqual(["Pommeau Noir"]);
    expect(namedValues("According to the table, Clos des Pommiers beat Pommeau Noir.")).toEqual(["Clos des Pommiers", "Pommeau Noir"]);
  });

  it("finds quoted strings first", () => {
    expect(namedValues('It is "blue heron" by Red Kite.')).toEqual(["blue heron", "Red Kite"]);
  });

  it("finds nothing in lower-case prose", () => {
    expect(namedValues("the strongest one is listed first")).toEqual([]);
  });
});
