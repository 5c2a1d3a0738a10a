import { describe, expect, it } from "vitest";
import { locateJsonError } from "@/lib/formats/locate-json-error";
import { firstInvalidUtf8Offset, readJson } from "@/lib/formats/read-json";

const read = (s: string | Uint8Array) => readJson(typeof s === "string" ? Buffer.from(s) : s);

describe("readJson", () => {
  it("parses valid JSON and notes a byte order mark", () => {
    expect(read('[{"a": 1}]')).toEqual({ ok: true, value: [{ a: 1 }], hadBom: false });
    expect(read('\ufeff[1]')).toEqual({ ok: true, value: [1], hadBom: true });
  });

  it("names line, column and what was expected for every syntax error", () => {
    const cases: [string, string][] = [
      ['[\n  {"a": 1},\n  {"b": x}\n]', "line 3, column 9 (offset 22): expected a value"],
      ['[{"a":}]', "line 1, column 7 (offset 6): expected a value"],
      ["[1 2]", "line 1, column 4 (offset 3): expected ',' or ']' after an array element"],
      ['{"a":1,}', "line 1, column 8 (offset 7): expected a double-quoted property name"],
      ['{"a" 1}', "line 1, column 6 (offset 5): expected ':' after a property name"],
      ["[1]x", "line 1, column 4 (offset 3): expected the end of the file"],
      ['["a\tb"]', "line 1, column 4 (offset 3): expected a closing quote (control characters must be escaped)"],
      ['["\\q"]', "line 1, column 3 (offset 2): expected a valid escape sequence"],
    ];
    for (const [text, message] of cases) {
      const r = read(text);
      expect(r.ok, text).toBe(false);
      if (!r.ok) {
        expect(r.code).toBe("json_syntax");
        expect(r.message, text).toContain(message);
      }
    }
  });

  it("reports truncated files at their end", () => {
    const r = read('[{"uuid": "x", "output": [{"turn_id": 0');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/line 1, column 40 \(offset 39\): expected ',' or '\}', found the end of the file \(truncated JSON\?\)/);
  });

  it("gives the byte offset of invalid UTF-8", () => {
    const bytes = Buffer.concat([Buffer.from('["ok", "é", "'), Buffer.from([0xc3, 0x28]), Buffer.from('"]')]);
    const r = read(bytes);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.code).toBe("not_utf8");
      expect(r.message).toContain("invalid byte 0xc3 at byte offset 14");
    }
  });

  it("finds each kind of broken UTF-8 sequence", () => {
    expect(firstInvalidUtf8Offset(Buffer.from([0x41, 0xff]))).toBe(1);
    expect(firstInvalidUtf8Offset(Buffer.from([0xe2, 0x82]))).toBe(0); // truncated 3-byte sequence
    expect(firstInvalidUtf8Offset(Buffer.from([0x41, 0xc0, 0x80]))).toBe(1); // overlong
    expect(firstInvalidUtf8Offset(Buffer.from([0xed, 0xa0, 0x80]))).toBe(0); // surrogate
    expect(firstInvalidUtf8Offset(Buffer.from("héllo €𝄞"))).toBe(Buffer.from("héllo €𝄞").length);
  });
});

describe("locateJsonError", () => {
  it("accepts valid JSON, however deeply nested, without recursion", () => {
    for (const v of ["[]", "{}", ' "s" ', "-0.5e3", '[1,{"a":[true,null,"x\\n\\u00e9"]}]', "[".repeat(200_000) + "]".repeat(200_000)]) {
      expect(locateJsonError(v), v.slice(0, 20)).toBeUndefined();
    }
  });

  it("points at the first problem", () => {
    expect(locateJsonError("[1,]")).toEqual({ offset: 3, expected: expect.stringContaining("a value") });
    expect(locateJsonError("{,}")).toEqual({ offset: 1, expected: "a double-quoted property name" });
    expect(locateJsonError("")).toEqual({ offset: 0, expected: "a value" });
    expect(locateJsonError("[".repeat(200_000))?.offset).toBe(200_000);
  });
});
