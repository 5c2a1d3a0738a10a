/**
 * The engine imports downward only (layers.ts declares the order) and stays pure: no folder of
 * lib/ takes part in an import cycle, no engine module imports a layer above its own or any code
 * outside the engine (database, web, GitHub, orchestration), and none reads the environment.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ENGINE_LAYERS, FORBIDDEN_PACKAGES, OUTSIDE_ENGINE } from "./layers";
import { folderOf, importsIn, importsOf, rel, repo, resolveImport, sourceFiles } from "./source-imports";

const layerOf = new Map(ENGINE_LAYERS.map((l, i) => [l.folder, i]));
const engineFiles = ENGINE_LAYERS.filter((l) => existsSync(path.join(repo, l.folder))).flatMap((l) => sourceFiles(l.folder));

/** Imports between lib folders: from folder → to folder → the imports that make the edge. */
function libGraph(): Map<string, Map<string, string[]>> {
  const graph = new Map<string, Map<string, string[]>>();
  for (const file of sourceFiles("lib")) {
    const from = folderOf(rel(file));
    for (const spec of importsOf(file)) {
      const to = folderOf(resolveImport(file, spec));
      if (to === from || !to.startsWith("lib/")) continue;
      const edges = graph.get(from) ?? new Map<string, string[]>();
      graph.set(from, edges);
      edges.set(to, [...(edges.get(to) ?? []), `${rel(file)} imports ${spec}`]);
    }
  }
  return graph;
}

/** The strongly connected groups of two or more folders (Tarjan): each is an import cycle. */
function cyclesIn(graph: Map<string, Map<string, string[]>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const groups: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      group.push(w);
      if (w === v) break;
    }
    if (group.length > 1) groups.push(group.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return groups;
}

/** The shortest cycles through a group's folders, each as its path and one import per step. */
function describeCycles(group: string[], graph: Map<string, Map<string, string[]>>): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const start of group) {
    // Breadth first from `start` until an edge leads back to it: the shortest cycle through it.
    const parent = new Map<string, string>();
    const queue = [start];
    let last: string | undefined;
    while (queue.length && !last) {
      const v = queue.shift()!;
      for (const w of [...(graph.get(v)?.keys() ?? [])].filter((x) => group.includes(x)).sort()) {
        if (w === start) {
          last = v;
          break;
        }
        if (!parent.has(w)) {
          parent.set(w, v);
          queue.push(w);
        }
      }
    }
    const path = [start];
    for (let v = last!; v !== start; v = parent.get(v)!) path.splice(1, 0, v);
    const key = [...path].sort().join(" ");
    if (seen.has(key)) continue;
    seen.add(key);
    const steps = path.map((from, i) => {
      const imports = graph.get(from)!.get(path[(i + 1) % path.length]!)!;
      return `  ${imports[0]}${imports.length > 1 ? ` (+${imports.length - 1} more)` : ""}`;
    });
    out.push([`cycle: ${[...path, start].join(" → ")}`, ...steps].join("\n"));
  }
  return out;
}

describe("import layers", () => {
  it("reads every form of import", () => {
    const text = ['import a from "./a";', 'import type { B } from "../b";', "import {\n  c,\n  d,\n} from '@/lib/c';", 'export { e } from "./e";', 'export * from "./f";', 'const g = await import("./g");', 'import "./h";', "// import x from './not-me';"].join("\n");
    expect(importsIn(text)).toEqual(["./a", "../b", "@/lib/c", "./e", "./f", "./g", "./h"]);
  });

  it("knows every lib folder: each is an engine layer or declared outside the engine", () => {
    const folders = readdirSync(path.join(repo, "lib"), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => `lib/${d.name}`);
    expect(folders.filter((f) => !layerOf.has(f) && !OUTSIDE_ENGINE.includes(f))).toEqual([]);
    expect(ENGINE_LAYERS.map((l) => l.folder).filter((f) => !folders.includes(f))).toEqual([]);
    expect(engineFiles.length).toBeGreaterThan(100);
  });

  it("has no import cycle between lib folders", () => {
    const graph = libGraph();
    expect(cyclesIn(graph).flatMap((g) => describeCycles(g, graph))).toEqual([]);
  });

  it("finds a planted cycle", () => {
    const graph = new Map([
      ["lib/a", new Map([["lib/b", ["lib/a/x.ts imports ../b/y"]]])],
      ["lib/b", new Map([["lib/c", ["lib/b/y.ts imports ../c/z"]]])],
      ["lib/c", new Map([["lib/a", ["lib/c/z.ts imports ../a/x"]]])],
      ["lib/d", new Map([["lib/a", ["lib/d/w.ts imports ../a/x"]]])],
    ]);
    expect(cyclesIn(graph)).toEqual([["lib/a", "lib/b", "lib/c"]]);
    expect(describeCycles(["lib/a", "lib/b", "lib/c"], graph)).toEqual(["cycle: lib/a → lib/b → lib/c → lib/a\n  lib/a/x.ts imports ../b/y\n  lib/b/y.ts imports ../c/z\n  lib/c/z.ts imports ../a/x"]);
  });

  it("imports only from its own layer or the layers below it", () => {
    const bad: string[] = [];
    for (const file of engineFiles) {
      const from = folderOf(rel(file));
      for (const spec of importsOf(file)) {
        const to = folderOf(resolveImport(file, spec));
        if (layerOf.has(to) && layerOf.get(to)! > layerOf.get(from)!) bad.push(`${rel(file)} imports ${spec}: ${to} is above ${from}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("imports nothing outside the engine: no database, web, GitHub or orchestration code", () => {
    const bad: string[] = [];
    for (const file of engineFiles) {
      for (const spec of importsOf(file)) {
        const target = resolveImport(file, spec);
        const ours = spec.startsWith(".") || spec.startsWith("@/");
        if ((ours && !layerOf.has(folderOf(target))) || (!ours && FORBIDDEN_PACKAGES.test(spec))) bad.push(`${rel(file)} imports ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("reads no environment variables (configuration is passed in)", () => {
    const reads = /\bprocess\s*(\.\s*env\b|\[\s*["'`]env["'`]\s*\])|["'](node:)?process["']/;
    expect(["process.env.X", 'process["env"]', 'import { env } from "node:process";'].every((t) => reads.test(t))).toBe(true);
    expect(reads.test("process.hrtime()")).toBe(false);
    const bad = engineFiles.filter((f) => reads.test(readFileSync(f, "utf8"))).map(rel);
    expect(bad).toEqual([]);
  });
});
