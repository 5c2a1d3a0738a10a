/**
 * Fills a database with the demo entries (for developing pages):
 * AGENTBOARD_DB=<file> npm run dev:db, or AGENTBOARD_DATABASE_URL=postgres://… npm run dev:db
 */
import { closeDatabase, connectDatabase } from "../db/client";
import { createScoringDeps } from "../lib/submissions/scoring-deps";
import { loadDemoEntries } from "../lib/submissions/demo-entries";
import { DEMO_DIR, NVIDIA_DEMO_DIR } from "./demo/build-demo";

const db = await connectDatabase();
const deps = createScoringDeps(db);
try {
  for (const [dir, isDefault] of [[DEMO_DIR, true], [NVIDIA_DEMO_DIR, false]] as const) {
    const r = await loadDemoEntries(db, dir, deps, (l) => process.stderr.write(`${l}\n`), { isDefault });
    process.stdout.write(`${JSON.stringify(r)}\n`);
  }
} finally {
  await deps.close();
  await closeDatabase(db);
}
