/**
 * `agentboard submit --agent <name>` through the real CLI process, on each engine: the name is
 * held to the issue form's limits for the agent name (100 characters, one line, no control or
 * bidirectional-override characters; trimmed). A refused name is a usage error (exit 2) that
 * stores nothing; a good one is stored trimmed.
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { submissions } from "@/db/schema";
import { ENGINES, useFreshDatabase } from "../helpers/engines";
import { GOOD_BUNDLE, MINI_BENCHMARK } from "../helpers/mini-fixtures";
import { runCli } from "../helpers/run-cli";

describe.each(ENGINES)("agentboard submit --agent (%s)", (engine) => {
  const fresh = useFreshDatabase(engine);
  const submit = (agent: string) => runCli(["submit", GOOD_BUNDLE, "--benchmark", MINI_BENCHMARK, "--db", fresh.t.url, "--agent", agent], { AGENTBOARD_DATABASE_URL: "" });

  it.each([
    ["100,000 characters", "x".repeat(100_000), "--agent: expected at most 100 characters (the issue form's limits for the agent name; got 100000 characters)"],
    ["101 characters", "x".repeat(101), "--agent: expected at most 100 characters"],
    ["a right-to-left override", "evil\u202egpj.exe", "--agent: expected no control or bidirectional-override characters"],
    ["an escape sequence", "a\u001b[2Jb", "--agent: expected no control or bidirectional-override characters"],
    ["two lines", "one\ntwo", "--agent: expected a single line"],
    ["only spaces", "   ", "--agent: expected a value (this field is required)"],
  ])("refuses %s with exit 2 and stores nothing", async (_what, agent, message) => {
    const r = await submit(agent);
    expect(r.code, r.stderr.slice(0, 500)).toBe(2);
    expect(r.stderr).toContain(`error: ${message}`);
    expect(await fresh.db.select({ id: submissions.id }).from(submissions)).toEqual([]);
  });

  it.each([
    ["exactly 100 characters, as given", "a".repeat(100), "a".repeat(100)],
    ["spaces around it, trimmed", "  spaced agent  ", "spaced agent"],
  ])("stores a name of %s", async (_what, agent, stored) => {
    const r = await submit(agent);
    expect(r.code, r.stderr).toBe(0);
    const { submissionId } = JSON.parse(r.stdout) as { submissionId: number };
    expect((await fresh.db.select({ agent: submissions.agentName }).from(submissions).where(eq(submissions.id, submissionId)))[0]?.agent).toBe(stored);
  });
});
