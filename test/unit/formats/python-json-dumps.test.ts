/**
 * pythonJsonDumps against Python's own `json.dumps(v, indent=2, ensure_ascii=…)` text (the
 * expected strings were printed by Python 3.11 for the same value): VAKRA's evaluator writes its
 * files with ensure_ascii=False, NAT's evaluators build prompts with the default.
 */
import { describe, expect, it } from "vitest";
import { parseLosslessJson } from "@/lib/formats/lossless-json";
import { pythonJsonDumps } from "@/lib/formats/python-str";

// A float written 1.0, floats Python lays out in exponent form, an integer beyond 2^53, empty
// containers, and a string holding controls, DEL, non-ASCII, an astral character and U+2028.
const value = parseLosslessJson('{"s": "a\\u0001\\u007f\\u00e9\\ud83d\\udea2\\"\\\\\\n\\t\\b\\f\\u2028", "f": 1.0, "big": 1e16, "small": 1e-05, "third": 0.3333333333333333, "i": 9007199254740993, "e": [], "o": {}}');

describe("pythonJsonDumps", () => {
  it("writes what json.dumps(indent=2, ensure_ascii=False) writes", () => {
    expect(pythonJsonDumps(value, { ensureAscii: false })).toBe(
      '{\n  "s": "a\\u0001\u007f\u00e9\ud83d\udea2\\"\\\\\\n\\t\\b\\f\u2028",\n  "f": 1.0,\n  "big": 1e+16,\n  "small": 1e-05,\n  "third": 0.3333333333333333,\n  "i": 9007199254740993,\n  "e": [],\n  "o": {}\n}',
    );
  });

  it("writes what json.dumps(indent=2) writes by default (ensure_ascii)", () => {
    expect(pythonJsonDumps(value)).toBe(
      '{\n  "s": "a\\u0001\\u007f\\u00e9\\ud83d\\udea2\\"\\\\\\n\\t\\b\\f\\u2028",\n  "f": 1.0,\n  "big": 1e+16,\n  "small": 1e-05,\n  "third": 0.3333333333333333,\n  "i": 9007199254740993,\n  "e": [],\n  "o": {}\n}',
    );
  });

  it("escapes a lone surrogate, which Python could not write as UTF-8 at all", () => {
    expect(pythonJsonDumps({ s: "x\ud800y" }, { ensureAscii: false })).toBe('{\n  "s": "x\\ud800y"\n}');
  });
});
