import { describe, expect, it } from "vitest";
import { coerceArguments, type JsonSchema } from "@/lib/replay/coerce-arguments";
import { normaliseToolResult, retrieverChunks } from "@/lib/replay/tool-result";

const schema: JsonSchema = {
  type: "object",
  properties: {
    n: { type: "integer" },
    x: { type: "number" },
    name: { type: "string" },
    tags: { type: "array", items: { type: "string" } },
    ids: { type: "array", items: { type: "integer" } },
    flag: { type: "boolean" },
    either: { anyOf: [{ type: "string" }, { type: "number" }] },
    nested: { type: "object", properties: { year: { type: "integer" } } },
  },
};

describe("coerceArguments", () => {
  it("applies VAKRA's coercions to the tool's schema", () => {
    expect(coerceArguments({ n: "42", x: " 3.5 ", name: 2020, tags: "red", ids: ["1", 2], flag: "TRUE", nested: { year: "1999" } }, schema)).toEqual({
      n: 42,
      x: 3.5,
      name: "2020",
      tags: ["red"],
      ids: [1, 2],
      flag: true,
      nested: { year: 1999 },
    });
  });

  it("leaves what it cannot coerce for the server to judge", () => {
    expect(coerceArguments({ n: "forty", x: "1e400x", flag: "maybe", extra: "kept", either: "7", n2: null }, schema)).toEqual({ n: "forty", x: "1e400x", flag: "maybe", extra: "kept", either: "7", n2: null });
    expect(coerceArguments({ n: "2.5" }, schema)).toEqual({ n: "2.5" }); // not an integer
    expect(coerceArguments({ a: "1" }, { type: "object" })).toEqual({ a: "1" });
  });
});

describe("normaliseToolResult", () => {
  it("parses JSON text, keeps other text, and turns isError into {error}", () => {
    expect(normaliseToolResult({ content: [{ type: "text", text: '{"count": 3}' }] })).toEqual({ count: 3 });
    expect(normaliseToolResult({ content: [{ type: "text", text: "plain words" }] })).toBe("plain words");
    expect(normaliseToolResult({ content: [{ type: "text", text: "no such column" }], isError: true })).toEqual({ error: "no such column" });
    expect(normaliseToolResult({ content: [], structuredContent: { a: 1 } })).toEqual({ a: 1 });
  });

  it("reduces retriever results to their text chunks", () => {
    expect(retrieverChunks({ results: [{ id: "d1", text: "alpha", score: 2 }, { id: "d2", text: "beta", score: 1 }] })).toEqual(["alpha", "beta"]);
    expect(retrieverChunks({ error: "boom" })).toEqual({ error: "boom" });
    expect(retrieverChunks([1, 2])).toEqual([1, 2]);
  });
});
