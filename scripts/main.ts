/**
 * The main job: migrate the database, build the demo benchmark, ingest and score its sample
 * submissions (MCP replay, rules judge) and those of the NVIDIA-style demo (evaluator
 * capabilities), publish them as demo entries, and serve the app on
 * 127.0.0.1:3000. Running it again changes nothing (no duplicate entries); Ctrl-C stops
 * everything it started.   npm run start:demo [-- --no-serve] [-- --port 3000]
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { closeDatabase, connectDatabase, DEFAULT_DB_FILE, isPostgresUrl } from "../db/client";
import { loadDemoEntries } from "../lib/submissions/demo-entries";
import { createScoringDeps } from "../lib/submissions/scoring-deps";
import { agentboardVersion } from "./commands/build-info";
import { spawnServer } from "./server/spawn-server";
import { buildDemo, DEMO_DIR, NVIDIA_DEMO_DIR } from "./demo/build-demo";

const args = process.argv.slice(2);
const serve = !args.includes("--no-serve");
const port = Number(args[args.indexOf("--port") + 1] ?? 3000) || 3000;
// Hosted mode (AGENTBOARD_DATABASE_URL=postgres://…) uses that database; else the SQLite file, as always.
const configured = process.env.AGENTBOARD_DATABASE_URL || undefined;
const pgUrl = configured && isPostgresUrl(configured) ? configured : null;
const dbFile = path.resolve((pgUrl ? undefined : configured) ?? process.env.AGENTBOARD_DB ?? DEFAULT_DB_FILE);
const env = { ...process.env, ...(pgUrl ? {} : { AGENTBOARD_DB: dbFile, AGENTBOARD_DATABASE_URL: "" }), NEXT_TELEMETRY_DISABLED: "1" };
const say = (s: string) => process.stdout.write(`${s}\n`);
/** A database URL fit to print: the password is not. */
function withoutPassword(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = "***";
  return u.toString();
}
const started = performance.now();

say(`Database ${pgUrl ? withoutPassword(pgUrl) : path.relative(process.cwd(), dbFile)} (migrations applied)`);
const db = await connectDatabase(pgUrl ?? dbFile);

say("Building the demo benchmark (databases, ground truth executed over MCP, sample submissions)…");
const built = await buildDemo({ log: (l) => process.stderr.write(`  ${l}\n`) });
say(`  ${built.dialogues} dialogues in ${path.relative(process.cwd(), DEMO_DIR)}/`);

say("Ingesting, scoring (MCP replay, rules judge) and publishing the sample submissions…");
const deps = createScoringDeps(db, { env: process.env, agentboard: agentboardVersion() });
try {
  for (const [dir, isDefault] of [[DEMO_DIR, true], [NVIDIA_DEMO_DIR, false]] as const) {
    say(`  ${path.relative(process.cwd(), dir)}/${isDefault ? " (the default leaderboard)" : " (evaluator capabilities: qa, trajectory, report)"}`);
    const r = await loadDemoEntries(db, dir, deps, (l) => say(`    ${l}`), { isDefault });
    say(r.created === 0 ? "    already loaded: nothing changed" : `    ${r.created} ingested, ${r.scored} scored, ${r.published} published as demo entries`);
  }
} finally {
  await deps.close();
  await closeDatabase(db);
}
say(`Data ready in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
if (!serve) process.exit(0);

// Build the app when there is no build or a source is newer than it.
const buildId = ".next/BUILD_ID";
const newest = (p: string): number => {
  if (!existsSync(p)) return 0;
  const s = statSync(p);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(0, ...readdirSync(p).filter((n) => n !== "node_modules" && !n.startsWith(".")).map((n) => newest(path.join(p, n))));
};
const sourcesChanged = () => Math.max(...["app", "components", "lib", "db", "public", "next.config.mjs", "package.json"].map(newest)) > statSync(buildId).mtimeMs;
if (!existsSync(buildId) || sourcesChanged()) {
  say("Building the web app (next build)…");
  const buildStarted = performance.now();
  const b = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], { stdio: "inherit", env });
  if (b.status !== 0) process.exit(b.status ?? 1);
  say(`Web app built in ${((performance.now() - buildStarted) / 1000).toFixed(1)} s.`);
}

say(`Serving the leaderboard on http://127.0.0.1:${port} (Ctrl-C stops it)`);
const server = spawnServer({ port, cwd: process.cwd(), env, stdio: "inherit" });
const stop = () => {
  if (server.exitCode === null) server.kill("SIGTERM");
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
server.on("exit", (code, signal) => process.exit(signal ? 0 : (code ?? 0)));
