/** The engine stays pure: no database, Next.js, app or component imports (DESIGN.md §2). */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const repo = path.resolve(import.meta.dirname, "../..");
const ENGINE = ["lib/benchmark", "lib/formats", "lib/validate", "lib/replay", "lib/scoring", "lib/aggregate"];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? files(p) : /\.(ts|tsx)$/.test(name) ? [p] : [];
  });
}

function imports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"\n;]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g)].map((m) => (m[1] ?? m[2])!);
}

describe("engine purity", () => {
  const engineFiles = ENGINE.flatMap((d) => files(path.join(repo, d)));

  it("has engine modules to check", () => {
    expect(engineFiles.length).toBeGreaterThan(20);
  });

  it("imports no database, Next.js, app, component or orchestration code", () => {
    const bad: string[] = [];
    for (const f of engineFiles) {
      for (const spec of imports(f)) {
        const resolved = spec.startsWith(".") ? path.relative(repo, path.resolve(path.dirname(f), spec)) : spec.replace(/^@\//, "");
        if (/^(next|react)(\/|$)|^(db|app|components|scripts)(\/|$)|^lib\/(submissions|queries|github)(\/|$)|^server-only$/.test(resolved)) {
          bad.push(`${path.relative(repo, f)} imports ${spec}`);
        }
      }
    }
    expect(bad).toEqual([]);
  });

  it("reads no environment variables (configuration is passed in)", () => {
    const bad = engineFiles.filter((f) => /process\.env/.test(readFileSync(f, "utf8"))).map((f) => path.relative(repo, f));
    expect(bad).toEqual([]);
  });
});
