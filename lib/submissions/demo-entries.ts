/**
 * Loads a demo benchmark into the database and publishes its sample submissions as demo
 * entries. Idempotent: a second load finds every bundle already ingested and changes nothing.
 */
import { readdir } from "node:fs/promises";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { submissions } from "../../db/schema";
import { registerBenchmark } from "./benchmarks";
import { ingestBundle } from "./ingest";
import { approve } from "./review";
import type { ScoringDeps } from "./score-job";
import { runWorker } from "./worker";

export async function loadDemoEntries(db: Db, demoDir: string, deps: ScoringDeps, log: (line: string) => void = () => {}, opts: { isDefault?: boolean } = {}) {
  const { versionId } = await registerBenchmark(db, demoDir, { isDefault: opts.isDefault ?? true, now: deps.now() });
  const dir = path.join(demoDir, "submissions");
  let created = 0;
  for (const name of (await readdir(dir)).sort()) {
    const out = await ingestBundle(db, { versionId, bundlePath: path.join(dir, name), source: "demo", sourceRef: `benchmarks/${path.basename(demoDir)}/submissions/${name}`, actor: "demo-loader", isDemo: true }, deps.now);
    if (out.created) {
      created++;
      log(`ingested ${name}: ${out.state}`);
    }
  }
  const ran = await runWorker(db, deps, { untilIdle: true, log });
  let published = 0;
  for (const s of await db.select({ id: submissions.id }).from(submissions).where(and(eq(submissions.isDemo, true), eq(submissions.state, "scored"))).orderBy(submissions.id)) {
    await approve(db, s.id, { actor: "demo-loader", at: deps.now() }, { reason: "demo entry" });
    published++;
  }
  return { versionId, created, scored: ran, published };
}
