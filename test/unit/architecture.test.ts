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

describe("one scoring core", () => {
  const rel = (f: string) => path.relative(repo, f);
  const source = ["lib", "scripts", "app", "components"].flatMap((d) => files(path.join(repo, d)));

  it("has source to check", () => {
    expect(source.length).toBeGreaterThan(100);
  });

  // Each capability kind is one entry of lib/scoring/capability-scorers/registry.ts: loading,
  // output reading, validation and scoring. Nowhere else asks which kind a capability's data is.
  it("branches on a capability's kind only inside the capability scorers", () => {
    const allowed = (f: string) => rel(f).startsWith("lib/scoring/capability-scorers/") || rel(f) === "lib/benchmark/capability-data.ts";
    const bad = source.filter((f) => !allowed(f) && /\.kind\s*[!=]==?\s*["'](dataset|dialogues)["']/.test(readFileSync(f, "utf8"))).map(rel);
    expect(bad).toEqual([]);
  });

  it("scores a bundle through one entry point", () => {
    const callers = source.filter((f) => /\bscoreSubmission\(/.test(readFileSync(f, "utf8"))).map(rel);
    expect(callers.sort()).toEqual(["lib/scoring/score-bundle.ts", "lib/scoring/score-submission.ts"]);
  });

  // Everything that judges is a Grader, and every grader comes from the one factory.
  it("builds graders only in the judge factory", () => {
    const bad = source.filter((f) => rel(f) !== "lib/scoring/judges/judge-settings.ts" && /\bcreate(OpenAi|Rules)Grader\(/.test(readFileSync(f, "utf8"))).map(rel);
    expect(bad.filter((f) => !/^lib\/scoring\/judges\/(openai|rules)-grader\.ts$/.test(f))).toEqual([]);
  });

  it("resolves judge settings only through the factory", () => {
    const reads = /env(\.|\[\s*["'])(AGENTBOARD_JUDGE|OPENAI_(BASE_URL|API_KEY))/;
    const bad = source.filter((f) => reads.test(readFileSync(f, "utf8")) && rel(f) !== "lib/scoring/judges/judge-settings.ts").map(rel);
    expect(bad).toEqual([]);
  });
});
