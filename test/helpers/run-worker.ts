/**
 * One worker process for the many-workers test: waits for the start file (so every worker
 * begins at once), scores jobs from the database (a SQLite file or a postgres:// URL) until
 * the queue is empty, prints how many it ran, and exits 0 (anything thrown exits non-zero).
 *
 *   node --import tsx test/helpers/run-worker.ts <db file or url> <start file> [concurrency]
 */
import { existsSync } from "node:fs";
import { closeDatabase, connectDatabase } from "../../db/client";
import { createScoringDeps } from "../../lib/submissions/scoring-deps";
import { runWorker } from "../../lib/submissions/worker";

const [file, startFile, concurrency = "1"] = process.argv.slice(2);
if (!file || !startFile) throw new Error("usage: run-worker.ts <db file or url> <start file> [concurrency]");
const db = await connectDatabase(file);
const deps = createScoringDeps(db, { env: {} });
while (!existsSync(startFile)) await new Promise((r) => setTimeout(r, 10));
try {
  const n = await runWorker(db, deps, { untilIdle: true, concurrency: Number(concurrency), log: (l) => process.stderr.write(`${process.pid}: ${l}\n`) });
  process.stdout.write(`${n}\n`);
} finally {
  await deps.close();
  await closeDatabase(db);
}
