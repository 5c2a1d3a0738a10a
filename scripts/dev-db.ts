/** Fills a database with the demo entries (for developing pages): AGENTBOARD_DB=<file> npm run dev:db */
import { openDatabase } from "../db/client";
import { createScoringDeps } from "../lib/submissions/scoring-deps";
import { loadDemoEntries } from "../lib/submissions/demo-entries";
import { DEMO_DIR } from "./demo/build-demo";

const db = openDatabase();
const deps = createScoringDeps(db);
try {
  const r = await loadDemoEntries(db, DEMO_DIR, deps, (l) => process.stderr.write(`${l}\n`));
  process.stdout.write(`${JSON.stringify(r)}\n`);
} finally {
  await deps.close();
}
