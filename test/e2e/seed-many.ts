/**
 * Many published entries through the real pipeline, fast: a one-capability benchmark with
 * two items, tiny bundles, recorded replay, rules judge.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { closeDatabase, connectDatabase } from "@/db/client";
import { submissions } from "@/db/schema";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { ingestBundle } from "@/lib/submissions/ingest";
import { approve } from "@/lib/submissions/review";
import { createScoringDeps } from "@/lib/submissions/scoring-deps";
import { runWorker } from "@/lib/submissions/worker";
import { eq } from "drizzle-orm";

const record = (uuid: string, answer: string, calls: unknown[], responses: unknown[]) => ({
  uuid,
  domain: "d",
  output: [{ turn_id: 0, query: `What is ${uuid}?`, answer, sequence: { tool_call: calls, tool_response: responses } }],
});

export async function seedMany(dbFile: string, dir: string, n: number): Promise<number> {
  const bench = path.join(dir, "benchmark");
  mkdirSync(path.join(bench, "groundtruth/capability_2_dashboard_apis"), { recursive: true });
  writeFileSync(path.join(bench, "benchmark.yaml"), 'slug: many\ntitle: Many entries\nversion: "1"\ncapabilities:\n  - { id: tool_selection, label: Tool selection, directory: capability_2_dashboard_apis }\n');
  const gt = ["a", "b"].map((u, i) => ({ ...record(u, String(i + 1), [{ name: `get_${u}`, arguments: {} }], [[[i + 1]]]), additional_instructions: "" }));
  writeFileSync(path.join(bench, "groundtruth/capability_2_dashboard_apis/d.json"), JSON.stringify(gt));
  const db = await connectDatabase(dbFile);
  const { versionId } = await registerBenchmark(db, bench, { isDefault: true, now: new Date() });
  for (let i = 0; i < n; i++) {
    const bundle = path.join(dir, "bundles", String(i));
    mkdirSync(path.join(bundle, "capability_2_dashboard_apis"), { recursive: true });
    const right = (k: number) => (i * 7 + k) % 3 !== 0;
    // Each agent in its own words (letters, so no digit reaches the rules judge), as real agents
    // answer: a board whose entries all share answers is a board of copies, and comparing each
    // entry with thousands of others is not what this fixture is for.
    const voice = [...i.toString(26)].map((c) => String.fromCharCode(97 + parseInt(c, 26))).join("");
    const preds = ["a", "b"].map((u, k) => ({ ...record(u, `It is ${right(k) ? k + 1 : 9}, says ${voice}.`, [{ name: `get_${u}`, arguments: {} }], [[[right(k) ? k + 1 : 9]]]), status: "success", error: "", duration_s: 1 }));
    writeFileSync(path.join(bundle, "capability_2_dashboard_apis/d.json"), JSON.stringify(preds));
    writeFileSync(path.join(bundle, "metadata.json"), JSON.stringify({ agent_name: `agent-${String(i).padStart(5, "0")}`, models: [`model-${i % 17}`] }));
    await ingestBundle(db, { versionId, bundlePath: bundle, source: "local", sourceRef: bundle, actor: "seed", run: { replayMode: "recorded" } }, () => new Date());
  }
  const deps = createScoringDeps(db);
  await runWorker(db, deps, { untilIdle: true });
  await deps.close();
  const scored = await db.select({ id: submissions.id }).from(submissions).where(eq(submissions.state, "scored"));
  for (const { id } of scored) await approve(db, id, { actor: "seed", at: new Date() });
  await closeDatabase(db);
  return scored.length;
}
