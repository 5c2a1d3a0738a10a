/** JSON read as Python's json.loads reads it, and rendered as Python's str() renders it. */
import { describe, expect, it } from "vitest";
import { JsonNumber, KEY_ORDER, orderedKeys, parseLosslessJson, toPlainJson } from "@/lib/formats/lossless-json";
import { pythonFloatRepr, pythonStr } from "@/lib/formats/python-str";
import { mayLoseFidelity as mayLoseBytes, readJson } from "@/lib/formats/read-json";
import { createRng } from "@/lib/aggregate/rng";

const py = (text: string) => pythonStr(parseLosslessJson(text));
const mayLoseFidelity = (text: string) => mayLoseBytes(Buffer.from(text));

describe("parseLosslessJson", () => {
  it("gives JSON.parse's values where nothing is lost", () => {
    const text = '{"a": [1, -2.5, "x\\u00e9\\n", true, false, null], "b": {"c": {}}, "d": []}';
    expect(parseLosslessJson(text)).toEqual(JSON.parse(text));
  });

  it("keeps integral floats, big integers and non-finite literals as JsonNumber", () => {
    const v = parseLosslessJson("[314328.0, 1e5, 9007199254740993, -0, -0.0, NaN, -Infinity, 12]") as unknown[];
    expect(v.map((x) => (x instanceof JsonNumber ? `${x.kind}:${x.source}` : x))).toEqual(["float:314328.0", "float:1e5", "int:9007199254740993", 0, "float:-0.0", "float:NaN", "float:-Infinity", 12]);
    expect(JSON.stringify(v)).toBe("[314328,100000,9007199254740992,0,0,null,null,12]");
    expect(toPlainJson(v)).toEqual([314328, 100000, 9007199254740992, 0, -0, Number.NaN, -Infinity, 12]);
  });

  it("keeps the key order of objects with integer-like keys, first position for a repeated key", () => {
    const v = parseLosslessJson('{"b": 1, "2": 2, "1": 3, "b": 4}') as Record<string, unknown>;
    expect(orderedKeys(v)).toEqual(["b", "2", "1"]);
    expect(v.b).toBe(4);
    expect(Object.keys(v)).toEqual(["1", "2", "b"]); // what plain code sees, as with JSON.parse
    expect((parseLosslessJson('{"a": 1}') as Record<symbol, unknown>)[KEY_ORDER]).toBeUndefined();
  });

  it("makes __proto__ an own key, never the prototype", () => {
    const v = parseLosslessJson('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.keys(v)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("refuses malformed JSON with the offset", () => {
    for (const bad of ["[1,]", '{"a" 1}', '"\\x"', "[01]", "tru", '"a\nb"', "[1] 2"]) {
      expect(() => parseLosslessJson(bad), bad).toThrow(/offset \d+/);
    }
  });

  it("is used by readJson only for files that may need it", () => {
    const bytes = (s: string) => new TextEncoder().encode(s);
    const lossy = readJson(bytes("[[25.0]]"), { pythonValues: true });
    expect(lossy.ok && (lossy.value as unknown[][])[0]![0]).toBeInstanceOf(JsonNumber);
    expect(readJson(bytes("[[25.0]]")).ok && (readJson(bytes("[[25.0]]")) as { value: unknown[][] }).value[0]![0]).toBe(25);
    expect(mayLoseFidelity('[{"a": 1.5, "b": "text", "c": 12}]')).toBe(false);
    for (const t of ["[1.0]", "[2.50e3]", "[12345678901234567]", '{"1": 0}', "[-0]", "[NaN]"]) expect(mayLoseFidelity(t), t).toBe(true);
  });

  it("lets hex uuids and numbers inside strings take the fast reader", () => {
    expect(mayLoseFidelity('[{"uuid": "3e4f0c2a-9e1b-4d7e-a2c3-5e6f7a8b9c0d", "answer": "about 1.0e5 km or NaN, not -0"}]')).toBe(false);
    expect(mayLoseFidelity('{"a": [0, 0.5, -1.25, 123456789012345], "b": "x"}')).toBe(false);
  });

  it("is never false where the two readers would give different values", () => {
    // Random documents of numbers written every way JSON allows, keys and strings: wherever
    // the lossless reader keeps something JSON.parse loses, the check must say so.
    const rng = createRng(20261125);
    const pick = <T,>(xs: readonly T[]) => xs[Math.floor(rng() * xs.length)]!;
    const digits = (n: number) => Array.from({ length: n }, () => String(Math.floor(rng() * 10))).join("");
    const int = () => (rng() < 0.2 ? "0" : `${1 + Math.floor(rng() * 9)}${digits(pick([0, 1, 3, 14, 15, 16, 18]))}`);
    const number = () => {
      let s = `${rng() < 0.3 ? "-" : ""}${int()}`;
      if (rng() < 0.5) s += `.${pick(["0", "00", "5", "50", digits(pick([1, 14, 15, 16, 17, 20])), `${"0".repeat(pick([14, 15, 16, 17]))}1`, "9".repeat(pick([15, 16, 17]))])}`;
      if (rng() < 0.15) s += `${pick(["e", "E"])}${pick(["", "+", "-"])}${1 + Math.floor(rng() * 30)}`;
      return rng() < 0.03 ? pick(["NaN", "Infinity", "-Infinity"]) : s;
    };
    const ws = () => pick(["", " ", "\n  ", "\t"]);
    const key = () => JSON.stringify(pick(["a", "uuid", "3e5", "1.0", "12", "007", "x y"])).replace(/^"12"$/, () => pick(['"12"', '"\\u0031\\u0032"']));
    const value = (depth: number): string => {
      const r = rng();
      if (depth > 3 || r < 0.45) return number();
      if (r < 0.6) return JSON.stringify(pick(["3e4f-9e1b", "1.0", "-0", "NaN", "x,1.0", "[2e3]"]));
      if (r < 0.8) return `[${ws()}${Array.from({ length: Math.floor(rng() * 4) }, () => value(depth + 1)).join(`${ws()},${ws()}`)}${ws()}]`;
      return `{${Array.from({ length: Math.floor(rng() * 4) }, () => `${ws()}${key()}${ws()}:${ws()}${value(depth + 1)}`).join(",")}${ws()}}`;
    };
    let differing = 0;
    for (let i = 0; i < 4000; i++) {
      const text = `${ws()}${value(0)}${ws()}`;
      let plain: unknown;
      try {
        plain = JSON.parse(text);
      } catch {
        continue; // NaN and Infinity: JSON.parse refuses them, so the lossless reader must be asked
      }
      if (!sameValue(parseLosslessJson(text), plain)) {
        differing++;
        expect(mayLoseFidelity(text), text).toBe(true);
      }
    }
    expect(differing).toBeGreaterThan(100);
  });
});

/** Equal as both readers would return them: no JsonNumber, no kept key order, -0 is not 0. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof JsonNumber) return false;
  if (typeof a !== "object" || a === null) return Object.is(a, b);
  if (typeof b !== "object" || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  if ((a as Record<symbol, unknown>)[KEY_ORDER]) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

describe("pythonStr of lossless values", () => {
  it("renders what json.loads then str() would", () => {
    expect(py("[314328.0, 314328, 1e5, 1E-7, 9007199254740993, -0, -0.0]")).toBe("[314328.0, 314328, 100000.0, 1e-07, 9007199254740993, 0, -0.0]");
    expect(py('{"2": "b", "1": [1.0, null, true]}')).toBe("{'2': 'b', '1': [1.0, None, True]}");
    expect(py("[1e400, -1e400, NaN]")).toBe("[inf, -inf, nan]");
  });

  it("prints floats with Python's shortest digits and layout", () => {
    const cases: [number, string][] = [
      [-29742088339035.062, "-29742088339035.062"],
      [1e16, "1e+16"],
      [1e15, "1000000000000000.0"],
      [123456789012345680, "1.2345678901234568e+17"],
      [0.0001, "0.0001"],
      [0.00001, "1e-05"],
      [2.5, "2.5"],
      [5e-324, "5e-324"],
      [1.7976931348623157e308, "1.7976931348623157e+308"],
    ];
    for (const [n, s] of cases) expect(pythonFloatRepr(n), s).toBe(s);
  });

  it("escapes what Python's str.isprintable() refuses", () => {
    expect(pythonStr(["a\u00a0b", "\u200b", "\u2028", "\ufeff", "\u3000", " ", "\ud800"])).toBe("['a\\xa0b', '\\u200b', '\\u2028', '\\ufeff', '\\u3000', ' ', '\\ud800']");
    expect(pythonStr(["\u{e0001}", "é", "日本"])).toBe("['\\U000e0001', 'é', '日本']");
  });
});
