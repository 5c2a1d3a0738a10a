/**
 * One way to do each thing: one scoring core, one writer of the database, one speaker of
 * GitHub. (How the engine's folders import each other: layers.test.ts.)
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { importsOf as imports, rel, repo, resolveImport as resolve, sourceFiles as files } from "./source-imports";

describe("one scoring core", () => {
  const source = files("lib", "scripts", "app", "components");

  it("has source to check", () => {
    expect(source.length).toBeGreaterThan(100);
  });

  // Each capability kind is one entry in each layer's registry: its loader
  // (lib/benchmark/capability-loaders), its outputs reader (lib/validate/outputs-readers) and its
  // scorer (lib/scoring/capability-scorers). Nowhere else asks which kind a capability's data is.
  it("branches on a capability's kind only inside the per-kind registries", () => {
    const kinds = ["lib/benchmark/capability-loaders/", "lib/validate/outputs-readers/", "lib/scoring/capability-scorers/"];
    const allowed = (f: string) => kinds.some((k) => rel(f).startsWith(k)) || rel(f) === "lib/benchmark/capability-data.ts";
    const bad = source.filter((f) => !allowed(f) && /\.kind\s*[!=]==?\s*["'](dataset|dialogues)["']/.test(readFileSync(f, "utf8"))).map(rel);
    expect(bad).toEqual([]);
  });

  it("scores a bundle through one entry point", () => {
    const callers = source.filter((f) => /\bscoreSubmission\(/.test(readFileSync(f, "utf8"))).map(rel);
    expect(callers.sort()).toEqual(["lib/aggregate/score-bundle.ts", "lib/scoring/score-submission.ts"]);
  });

  // Everything that judges is a Grader, and every grader comes from the one factory.
  it("builds graders only in the judge factory", () => {
    const bad = source.filter((f) => rel(f) !== "lib/judges/judge-settings.ts" && /\bcreate(OpenAi|Rules|Literal|Verdicts)Grader\(/.test(readFileSync(f, "utf8"))).map(rel);
    expect(bad.filter((f) => !/^lib\/judges\/(openai|rules|literal|verdicts)-grader\.ts$/.test(f))).toEqual([]);
  });

  it("resolves judge settings only through the factory", () => {
    const reads = /env(\.|\[\s*["'])(AGENTBOARD_JUDGE|OPENAI_(BASE_URL|API_KEY))/;
    const bad = source.filter((f) => reads.test(readFileSync(f, "utf8")) && rel(f) !== "lib/judges/judge-settings.ts").map(rel);
    expect(bad).toEqual([]);
  });
});

describe("one writer of the database, one speaker of GitHub", () => {
  const githubFiles = files("lib/github");
  const queryFiles = files("lib/queries");
  const source = files("lib", "scripts", "app", "components", "db");

  // Table names from the schema, so `.delete(key)` on a Map is not taken for a row deletion.
  const tables = [...readFileSync(path.join(repo, "db/schema.ts"), "utf8").matchAll(/export const (\w+) = sqliteTable\(/g)].map((m) => m[1]!);
  const drizzleWrite = new RegExp(`\\.\\s*(insert|update|delete)\\s*\\(\\s*(\\w+\\.)?(${tables.join("|")})\\s*\\)`, "g");
  // Raw SQL that changes data or schema, however it is run (prepare, exec, sql``).
  const sqlWrite = /\b(INSERT|REPLACE)\s+(OR\s+\w+\s+)?INTO\b|\bUPDATE\s+["'`]?\w+["'`]?\s+SET\b|\bDELETE\s+FROM\b|\b(CREATE|DROP|ALTER)\s+(TABLE|INDEX|VIEW|TRIGGER)\b/gi;
  // Executing a statement for its effect: drizzle's and better-sqlite3's `.run()`, and `$client.exec()`.
  const execution = /\.\s*run\s*\(|\$client\s*\.\s*exec\s*\(/g;

  /** The database writes in a source text (comments aside). */
  function writesIn(text: string): string[] {
    const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
    return [drizzleWrite, sqlWrite, execution].flatMap((re) => [...code.matchAll(re)].map((m) => m[0].replace(/\s+/g, " ")));
  }

  it("knows the schema's tables", () => {
    expect(tables).toEqual(expect.arrayContaining(["submissions", "auditLog", "githubIssues", "githubDeliveries"]));
  });

  it("recognises writes, and not look-alikes", () => {
    expect(writesIn("db.insert(githubDeliveries).values(v).onConflictDoNothing().run();")).toEqual([".insert(githubDeliveries)", ".run("]);
    expect(writesIn("tx.update(schema.submissions).set({ state })")).toEqual([".update(schema.submissions)"]);
    expect(writesIn("await db.delete(jobs).where(eq(jobs.id, 1));")).toEqual([".delete(jobs)"]);
    expect(writesIn('db.$client.prepare("UPDATE submissions SET state = ?").run("x")')).toEqual(["UPDATE submissions SET", ".run("]);
    expect(writesIn("db.$client.exec(`DELETE FROM audit_log`)")).toEqual(["DELETE FROM", "$client.exec("]);
    expect(writesIn("db.all(sql`insert into jobs (kind) values (1)`)")).toEqual(["insert into"]);
    const reads = [
      "db.select().from(submissions).where(eq(submissions.id, id)).get()",
      'db.$client.prepare("SELECT state FROM submissions WHERE id = ?").all(id)',
      "hash.update(chunk); seen.delete(key); /^a$/.exec(line); knownLabels.delete(submissions.id)",
      "// db.insert(submissions).run() in a comment\n/* UPDATE submissions SET x */",
    ];
    expect(reads.flatMap(writesIn)).toEqual([]);
  });

  it("lib/github and lib/queries write nothing to the database", () => {
    expect(githubFiles.length).toBeGreaterThan(5);
    expect(queryFiles.length).toBeGreaterThan(5);
    const bad = [...githubFiles, ...queryFiles].flatMap((f) => writesIn(readFileSync(f, "utf8")).map((w) => `${rel(f)}: ${w}`));
    expect(bad).toEqual([]);
  });

  it("lib/github and lib/queries import no orchestration; lib/github no database either", () => {
    const bad: string[] = [];
    for (const f of [...githubFiles, ...queryFiles]) {
      const forbidden = rel(f).startsWith("lib/github/") ? /^(db|app|components|scripts)(\/|$)|^lib\/(submissions|queries)(\/|$)|^(drizzle-orm|better-sqlite3|next)(\/|$)/ : /^lib\/(submissions|github)(\/|$)/;
      for (const spec of imports(f)) if (forbidden.test(resolve(f, spec))) bad.push(`${rel(f)} imports ${spec}`);
    }
    expect(bad).toEqual([]);
  });

  // The same code runs on SQLite and Postgres: the raw better-sqlite3 connection (SQLite only)
  // stays inside db/; everything else goes through the drizzle handle and db/client.ts.
  it("touches the raw SQLite connection ($client) only inside db/", () => {
    const bad = source.filter((f) => !rel(f).startsWith("db/") && /\$client\b/.test(readFileSync(f, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1"))).map(rel);
    expect(bad).toEqual([]);
  });

  it("imports octokit only in lib/github, and builds its client only in connect.ts", () => {
    const octokit = source.filter((f) => !rel(f).startsWith("lib/github/") && imports(f).some((s) => /^(octokit|@octokit\/)/.test(s))).map(rel);
    expect(octokit).toEqual([]);
    const builders = source.filter((f) => /\bnew OctokitGitHub\(/.test(readFileSync(f, "utf8"))).map(rel);
    expect(builders).toEqual(["lib/github/connect.ts"]);
  });
});
