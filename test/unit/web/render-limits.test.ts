/** What a public page renders of submitted text: cut strings, shortened lists, bounded JSON, no server paths. */
import { describe, expect, it } from "vitest";
import { redactPaths, publicSourceRef } from "@/lib/queries/redact-paths";
import { clipText, createClipper, FULL_RENDER_LIMITS, PUBLIC_RENDER_LIMITS } from "@/lib/queries/render-limits";

describe("clipText", () => {
  it("leaves short text alone and cuts long text with a note of what is missing", () => {
    expect(clipText("short", 10)).toEqual({ text: "short", cut: false });
    const out = clipText("x".repeat(25), 10);
    expect(out.cut).toBe(true);
    expect(out.text).toBe(`${"x".repeat(10)}… [15 more characters]`);
  });

  it("never splits a surrogate pair", () => {
    const out = clipText("ab😀cd", 3).text;
    expect(out.startsWith("ab…")).toBe(true);
    expect(out).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});

describe("createClipper", () => {
  it("cuts names and prose to their limits and counts the cuts", () => {
    const clip = createClipper(PUBLIC_RENDER_LIMITS);
    expect(clip.name("n".repeat(PUBLIC_RENDER_LIMITS.name))).toHaveLength(PUBLIC_RENDER_LIMITS.name);
    expect(clip.cuts).toBe(0);
    const name = clip.name("n".repeat(70_000));
    expect(name.length).toBeLessThan(PUBLIC_RENDER_LIMITS.name + 40);
    const text = clip.text("t".repeat(400_000));
    expect(text.length).toBeLessThan(PUBLIC_RENDER_LIMITS.text + 40);
    expect(clip.cuts).toBe(2);
  });

  it("shortens lists", () => {
    const clip = createClipper({ ...PUBLIC_RENDER_LIMITS, list: 3 });
    expect(clip.list([1, 2, 3])).toEqual([1, 2, 3]);
    expect(clip.list([1, 2, 3, 4, 5])).toEqual([1, 2, 3]);
    expect(clip.cuts).toBe(1);
  });

  it("bounds a JSON value whatever its shape: one string budget, item counts and depth", () => {
    const clip = createClipper({ ...PUBLIC_RENDER_LIMITS, json: 1000, list: 10 });
    let deep: unknown = "bottom";
    for (let i = 0; i < 500; i++) deep = { d: deep };
    const hostile = { huge: "h".repeat(1_000_000), many: Array.from({ length: 10_000 }, (_, i) => `item ${i}`), wide: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i])), deep };
    const out = JSON.stringify(clip.json(hostile));
    expect(out.length).toBeLessThan(5000);
    expect(out).toContain("more characters");
    expect(clip.cuts).toBe(1);
    const arr = createClipper({ ...PUBLIC_RENDER_LIMITS, list: 10 }).json(Array.from({ length: 100 }, (_, i) => i)) as unknown[];
    expect(arr).toHaveLength(11);
    expect(arr.at(-1)).toBe("… [90 more items]");
    const nested = JSON.stringify(createClipper().json(deep));
    expect(nested).toContain("nested too deep");
  });

  it("keeps small JSON as it is, and a __proto__ key as a plain key", () => {
    const value = { a: [1, 2, { b: "c" }], n: null, t: true };
    const clip = createClipper();
    expect(clip.json(value)).toEqual(value);
    expect(clip.cuts).toBe(0);
    const parsed = JSON.parse('{"__proto__": {"polluted": 1}}');
    const out = clip.json(parsed) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("reads a database prefix with its length as if it were the whole value", () => {
    const clip = createClipper({ ...PUBLIC_RENDER_LIMITS, text: 10 });
    expect(clip.prefix({ head: "short", length: 5 })).toBe("short");
    expect(clip.prefix({ head: "x".repeat(11), length: 1_000_000 })).toBe(`${"x".repeat(10)}… [999,990 more characters]`);
    expect(clip.cuts).toBe(1);
  });

  it("full limits are larger but bounded", () => {
    for (const k of Object.keys(PUBLIC_RENDER_LIMITS) as (keyof typeof PUBLIC_RENDER_LIMITS)[]) {
      expect(FULL_RENDER_LIMITS[k]).toBeGreaterThan(PUBLIC_RENDER_LIMITS[k]);
      expect(Number.isFinite(FULL_RENDER_LIMITS[k])).toBe(true);
    }
  });
});

describe("redactPaths", () => {
  it("shortens the known path of a CLI bundle and any other absolute path", () => {
    const bundle = "/home/alice/secret-project/bundles/agent-v2";
    expect(redactPaths(`from local: ${bundle}`, [bundle])).toBe("from local: bundles/agent-v2");
    expect(redactPaths("ENOENT: no such file, open '/srv/agentboard/data/x.zip'")).toBe("ENOENT: no such file, open '…/data/x.zip'");
    expect(redactPaths("C:\\Users\\bob\\bundle.zip failed")).toBe("…/bob/bundle.zip failed");
  });

  it("leaves URLs, relative paths and plain text alone", () => {
    for (const s of ["from github: https://github.com/o/r/issues/12", "benchmarks/demo/submissions/oracle", "approved by maintainer", "a/b and 1/2"]) expect(redactPaths(s)).toBe(s);
  });

  it("shows GitHub references as they are and shortens the rest", () => {
    expect(publicSourceRef("github", "https://github.com/o/r/issues/1")).toBe("https://github.com/o/r/issues/1");
    expect(publicSourceRef("local", "/tmp/agentboard-x/bundle")).toBe("agentboard-x/bundle");
  });
});
