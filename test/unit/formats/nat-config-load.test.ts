/**
 * NAT's config loading, value by value against upstream: the expansion rules of the
 * `expandvars` package as NAT calls it (`surrounded_vars_only=True`; NAT's own
 * test_yaml_tools.py cases), `deep_merge`, and `yaml_load`'s second expansion of parsed
 * values. The CLI runs are in test/integration/nat-vss-config.test.ts.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { deepMerge, loadNatConfig } from "../../../lib/formats/nat-config-load";
import { expandNatVariables } from "../../../lib/formats/nat-env-expand";

const expand = (text: string, vars: Record<string, string> = {}) => {
  const env = new Map(Object.entries(vars));
  const r = expandNatVariables(text, env);
  return { ...r, env };
};
const value = (text: string, vars: Record<string, string> = {}) => {
  const r = expand(text, vars);
  if (!r.ok) throw new Error(r.error);
  return r.text;
};

describe("expansion as NAT's expandvars call does it", () => {
  it("expands ${VAR}, and an unset one without default to \"\" (reported)", () => {
    expect(value("${TEST_VAR}", { TEST_VAR: "test_value" })).toBe("test_value");
    const r = expand("x: ${NONEXISTENT_VAR}\n");
    expect(r.ok && r.text).toBe("x: \n");
    expect(r.ok && r.unset).toEqual([{ name: "NONEXISTENT_VAR", start: 3, end: 21 }]);
  });

  it("uses defaults when unset or empty, nested, with bare $VAR expanded only inside a default", () => {
    expect(value("${NONEXISTENT_VAR:-default}")).toBe("default");
    expect(value("${NONEXISTENT_VAR:-}")).toBe("");
    expect(value("${EMPTY:-d}", { EMPTY: "" })).toBe("d");
    expect(value("${EMPTY-d}", { EMPTY: "" })).toBe("d");
    expect(value("${EVAL_OUTPUT_DIR:-${EVAL_DIR}/results}", { EVAL_DIR: "/e" })).toBe("/e/results");
    expect(value("${EVAL_OUTPUT_DIR:-${EVAL_DIR}/results}", { EVAL_DIR: "/e", EVAL_OUTPUT_DIR: "/o" })).toBe("/o");
    expect(value("${DATASET_DIR:-${EVAL_DIR}}/${DATASET_FILE_NAME}", { EVAL_DIR: "e", DATASET_FILE_NAME: "d.json" })).toBe("e/d.json");
    expect(value("${A:-$B/x}", { B: "b" })).toBe("b/x");
    // An unset variable inside a default counts only when the default is used.
    const used = expand("${A:-${B}}");
    expect(used.ok && used.unset.map((u) => u.name)).toEqual(["B"]);
    const unused = expand("${A:-${B}}", { A: "a" });
    expect(unused.ok && unused.unset).toEqual([]);
  });

  it("leaves bare $VAR and other dollars at the top level as written", () => {
    expect(value("$LIST_VAR", { LIST_VAR: "x" })).toBe("$LIST_VAR");
    expect(value("content safety check input $model=content_safety")).toBe("content safety check input $model=content_safety");
    expect(value("costs $5 and $")).toBe("costs $5 and $");
    expect(value("$${X}", { X: "1" })).toBe("$1");
  });

  it("reads \\$ as $ and \\\\ as one backslash, other backslashes as written", () => {
    expect(value("\\${X}", { X: "1" })).toBe("${X}");
    expect(value("a\\\\b")).toBe("a\\b");
    expect(value("'http://[^\\s)]+/(vss_\\d{8}\\.md)'")).toBe("'http://[^\\s)]+/(vss_\\d{8}\\.md)'");
    expect(expand("ends with \\").ok).toBe(false);
  });

  it(":= sets the variable for the rest of the load, :+ substitutes when set, :? refuses when unset", () => {
    const r = expand("${A:=first} ${A}");
    expect(r.ok && r.text).toBe("first first");
    expect(r.env.get("A")).toBe("first");
    expect(value("${A:+yes}|${B:+yes}", { A: "1" })).toBe("yes|");
    const strict = expand("${NEED:?set NEED to the judge URL}");
    expect(strict.ok ? "" : strict.error).toBe("NEED: set NEED to the judge URL");
    const bare = expand("${NEED:?}");
    expect(bare.ok ? "" : bare.error).toBe("NEED: parameter null or not set");
  });

  it("refuses an unclosed brace, an empty name and the forms it does not support, saying where", () => {
    for (const bad of ["${UNCLOSED", "${}", "${#X}", "${!X}", "${X:1:2}"]) {
      const r = expand(`k: ${bad}`);
      expect(r.ok, bad).toBe(false);
      expect(r.ok ? -1 : r.at).toBe(3);
    }
    // $$ is NAT's process id inside a default (at the top level it stays "$$").
    expect(expand("k: ${A:-$$}")).toMatchObject({ ok: false, at: 8 });
    expect(value("k: $$")).toBe("k: $$");
  });

  it("bounds the expanded text and the nesting of defaults", () => {
    const r = expandNatVariables("${X}${X}${X}", new Map([["X", "abcdef"]]), 10);
    expect(r.ok).toBe(false);
    const deep = 100_000;
    const nested = expand("${A:-".repeat(deep) + "x" + "}".repeat(deep));
    expect(nested.ok ? "" : nested.error).toBe("defaults nest more than 32 deep");
  });
});

describe("deep_merge", () => {
  it("merges mappings key by key; anything else in the override replaces", () => {
    expect(deepMerge({ a: 1, b: 2 }, { b: 3, c: 4 })).toEqual({ a: 1, b: 3, c: 4 });
    expect(deepMerge({ a: 1, b: { c: 2, d: 3 } }, { b: { d: 4 }, e: 5, f: 6 })).toEqual({ a: 1, b: { c: 2, d: 4 }, e: 5, f: 6 });
    expect(deepMerge({ a: "string" }, { a: { b: "dict" } })).toEqual({ a: { b: "dict" } });
    expect(deepMerge({ a: [1, 2] }, { a: [3] })).toEqual({ a: [3] });
    expect(deepMerge({ a: 1, b: 2 }, {})).toEqual({ a: 1, b: 2 });
  });
});

describe("yaml_load", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "agentboard-nat-load-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("expands parsed values a second time, reads YAML 1.1 as PyYAML does, keeps file:// in lists", async () => {
    mkdirSync(path.join(dir, "p"), { recursive: true });
    writeFileSync(path.join(dir, "p", "x.md"), "prompt text");
    // Single-quoted YAML keeps backslashes: four in the file are two after the text's expansion, one after the value's.
    writeFileSync(path.join(dir, "c.yml"), "a: ${OUTER}\nflag: yes\nn: ${N:-5}\ny: off\nre: '\\\\\\\\d\\s'\nlist: [file://p/x.md]\nmap: {k: file://p/x.md}\n");
    const r = await loadNatConfig(path.join(dir, "c.yml"), { env: { OUTER: "${INNER}", INNER: "deep" } });
    expect(r.ok && r.raw).toEqual({ a: "deep", flag: true, n: 5, y: false, re: "\\d\\s", list: ["file://p/x.md"], map: { k: "prompt text" } });
  });

  it("keeps the unset variables of values the override replaces out of the result", async () => {
    writeFileSync(path.join(dir, "base.yml"), "eval:\n  general:\n    output_dir: ${GONE}\n    keep: ${KEPT}\n");
    writeFileSync(path.join(dir, "child.yml"), "base: base.yml\neval:\n  general:\n    output_dir: out\n");
    const r = await loadNatConfig(path.join(dir, "child.yml"), { env: {} });
    // The text is expanded before it is parsed: a value that was only the variable is null, as in NAT.
    expect(r.ok && r.raw).toEqual({ eval: { general: { output_dir: "out", keep: null } } });
    expect(r.ok && r.unset.map((u) => [u.name, u.path?.join("."), u.line])).toEqual([["KEPT", "eval.general.keep", 4]]);
  });
});
