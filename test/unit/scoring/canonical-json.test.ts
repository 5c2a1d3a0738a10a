import { describe, expect, it } from "vitest";
import { pythonStr } from "@/lib/formats/python-str";
import { canonicalJson } from "@/lib/formats/canonical-json";

describe("canonicalJson", () => {
  it("ignores object key order, at every depth", () => {
    const a = canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: "x" } });
    const b = canonicalJson({ a: { c: "x", d: [1, { y: 2, z: 1 }] }, b: 1 });
    expect(a).toBe(b);
    expect(a).toBe('{"a":{"c":"x","d":[1,{"y":2,"z":1}]},"b":1}');
  });

  it("keeps array order significant", () => {
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });

  it("treats a JSON string like the value it encodes", () => {
    expect(canonicalJson('{"b": 1, "a": [1, 2]}')).toBe(canonicalJson({ a: [1, 2], b: 1 }));
    expect(canonicalJson('  \n[1, {"y": 2, "x": 1}]  ')).toBe('[1,{"x":1,"y":2}]');
  });

  it("compares other strings as text", () => {
    expect(canonicalJson("{not json}")).toBe('"{not json}"');
    expect(canonicalJson("hello")).toBe('"hello"');
    expect(canonicalJson("7")).not.toBe(canonicalJson(7));
  });

  it("normalises -0, non-finite numbers, undefined and null", () => {
    expect(canonicalJson(-0)).toBe("0");
    expect(canonicalJson([Number.NaN, Number.POSITIVE_INFINITY])).toBe("[null,null]");
    expect(canonicalJson({ a: 1, b: undefined })).toBe(canonicalJson({ a: 1 }));
    expect(canonicalJson(null)).toBe("null");
    expect(canonicalJson(undefined)).toBe("null");
    expect(canonicalJson([true, false, "s"])).toBe('[true,false,"s"]');
  });

  it("distinguishes different values", () => {
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: "1" }));
    expect(canonicalJson({ a: [1] })).not.toBe(canonicalJson({ a: [1, 1] }));
  });
});

describe("pythonStr", () => {
  it("reproduces Python str() of a dict with floats, booleans and None", () => {
    expect(pythonStr({ a: 1.5, b: [true, null] })).toBe("{'a': 1.5, 'b': [True, None]}");
    expect(pythonStr({ ok: false, rows: [], meta: {} })).toBe("{'ok': False, 'rows': [], 'meta': {}}");
  });

  it("keeps insertion order, as a Python dict does", () => {
    expect(pythonStr({ b: 1, a: 2 })).toBe("{'b': 1, 'a': 2}");
  });

  it("writes JS integers as Python ints and other numbers as Python floats", () => {
    expect(pythonStr(7)).toBe("7");
    expect(pythonStr(-3)).toBe("-3");
    expect(pythonStr(7.25)).toBe("7.25");
    expect(pythonStr(0.1 + 0.2)).toBe("0.30000000000000004");
    expect(pythonStr(1e-7)).toBe("1e-07");
    expect(pythonStr(1.5e300)).toBe("1.5e+300");
    expect(pythonStr(1e21)).toBe("1e+21");
    expect(pythonStr([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])).toBe("[nan, inf, -inf]");
  });

  it("returns a top-level string unchanged, as str() does", () => {
    expect(pythonStr("plain text")).toBe("plain text");
    expect(pythonStr("it's")).toBe("it's");
  });

  it("quotes strings inside containers as Python repr does", () => {
    expect(pythonStr(["abc", ""])).toBe("['abc', '']");
    expect(pythonStr(["it's"])).toBe(`["it's"]`);
    expect(pythonStr(['say "hi"'])).toBe(`['say "hi"']`);
    expect(pythonStr([`it's "x"`])).toBe(`['it\\'s "x"']`);
    expect(pythonStr({ "k'": "v" })).toBe(`{"k'": 'v'}`);
  });

  it("escapes backslashes and control characters", () => {
    expect(pythonStr(["line\nbreak\ttab\\end\r"])).toBe("['line\\nbreak\\ttab\\\\end\\r']");
    expect(pythonStr(["\u0001\u007f"])).toBe("['\\x01\\x7f']");
    expect(pythonStr(["café"])).toBe("['café']");
  });

  // Expected values printed by CPython 3: print([str(x) for x in [...]]).
  it.each([
    [0.0001, "0.0001"],
    [0.00015, "0.00015"],
    [1.5e-5, "1.5e-05"],
    [-2.5e-7, "-2.5e-07"],
    [2.5e-10, "2.5e-10"],
    [5e-324, "5e-324"],
    [0.1, "0.1"],
    [1234.5678, "1234.5678"],
    [12.0000001, "12.0000001"],
    [123456789012345.6, "123456789012345.6"],
    [1.7976931348623157e308, "1.7976931348623157e+308"],
  ])("float %s is written as Python writes it: %s", (n, expected) => {
    expect(pythonStr(n)).toBe(expected);
  });

  it("writes null and undefined as None", () => {
    expect(pythonStr(null)).toBe("None");
    expect(pythonStr(undefined)).toBe("None");
  });

  // Regression (fixed in 8554baf, lib/formats/canonical-json.ts pythonFloat): JS switches to
  // exponent notation below 1e-6, Python below 1e-4; str(5e-05) is "5e-05", not "0.00005".
  it("writes small floats in exponent form like Python (5e-05)", () => {
    expect(pythonStr(0.00005)).toBe("5e-05");
  });

  // Regression (fixed in 8554baf): String(-0) is "0", which came out "0.0"; Python's str(-0.0)
  // is "-0.0".
  it("writes negative zero like Python (-0.0)", () => {
    expect(pythonStr(-0)).toBe("-0.0");
  });
});
