/**
 * Markdown reports read as VSS's report evaluator reads them (`--compat nat`). The fixture
 * holds one case for each case of VSS's test_markdown_parser.py (its input in this project's
 * words, the structure VSS's parser returns for it), and two for layouts its tests leave out.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseMarkdownReport, readMarkdownAsVss } from "@/lib/formats/eval-report-markdown";

interface Case {
  mirrors: string;
  markdown: string[];
  vss: Record<string, unknown>;
}

const cases = JSON.parse(readFileSync(path.join(import.meta.dirname, "../../fixtures/nat/vss-markdown/cases.json"), "utf8")) as Case[];

describe("VSS's reading of markdown reports", () => {
  it("has a case for each of the 23 cases of VSS's test file, and the extra layouts", () => {
    expect(cases.filter((c) => c.mirrors.startsWith("Test")).length).toBe(23);
    expect(cases.length).toBe(25);
  });

  it.each(cases.map((c) => [c.mirrors, c] as const))("%s", (_name, c) => {
    const md = c.markdown.join("\n");
    const got = readMarkdownAsVss(md);
    expect(got).toEqual(c.vss);
    // Python's dicts keep insertion order, and the judge sees the keys in that order.
    expect(Object.keys(got)).toEqual(Object.keys(c.vss));
  });

  it("keeps Agentboard's own reading otherwise, with nothing extra to see or write", () => {
    const md = cases.find((c) => c.mirrors.endsWith("test_parse_table_skip_header"))!.markdown.join("\n");
    const own = parseMarkdownReport(md);
    // Agentboard skips the header row (the one above the rule) and keeps a data row named Field.
    expect(own).toEqual({ Site: { Field: "Sample" } });
    expect(Object.keys(own)).toEqual(["Site"]);
    expect(JSON.stringify(own)).toBe('{"Site":{"Field":"Sample"}}');
    expect(readMarkdownAsVss(md)).toEqual({ Site: {} });
  });

  it("fails, as VSS does, on a subsection under a section that holds text", () => {
    expect(() => readMarkdownAsVss("## Analysis Results\nseen\n## Analysis Results\n### Sub\n| a | b |")).toThrow(/holds text/);
  });

  it("strips lines as Python does: a byte-order mark stays (so the title line is no heading), U+0085 goes", () => {
    expect(readMarkdownAsVss("\ufeff# Gate\n## S\u0085\n| a | b |")).toEqual({ S: { a: "b" } });
  });

  it("takes any name as a key, even __proto__", () => {
    const got = readMarkdownAsVss("## __proto__\n| constructor | x |");
    expect(Object.keys(got)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
    expect(got["__proto__"]).toEqual({ constructor: "x" });
  });

  it("reads hostile long lines in linear time: unclosed <img, (http and time markers padded with spaces", () => {
    const n = 200_000;
    const img = `## Analysis Results\n${"<img".repeat(n)} end`;
    expect(readMarkdownAsVss(img)).toEqual({ "Analysis Results": `${"<img".repeat(n)} end` });
    const link = `**Incident Video:** ${"(http".repeat(n)}`;
    expect(readMarkdownAsVss(link)).toEqual({ Resources: {} });
    const marker = `## Analysis Results\n${"[1.25".padEnd(n, " ")}x ${"[0:05 - ".padEnd(n, " ")}y`;
    expect((readMarkdownAsVss(marker)["Analysis Results"] as string).length).toBeGreaterThan(n);
  });
});
