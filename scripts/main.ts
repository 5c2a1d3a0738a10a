/**
 * The main job: migrate the database, build the demo benchmark (only when its generator or its
 * files changed since the last build), ingest and score its sample submissions (MCP replay,
 * rules judge) and those of the NVIDIA-style demo (evaluator capabilities), publish them as demo
 * entries, then serve the app with one worker beside it, which scores whatever arrives later (a
 * `submit`, a GitHub issue, a rescore from /admin). Running it again changes nothing (no
 * duplicate entries); Ctrl-C stops everything it started.
 *
 *   npm run start:demo [-- --port 3000] [--host 127.0.0.1] [--no-serve]
 *
 * The database: AGENTBOARD_DATABASE_URL (postgres://…), else AGENTBOARD_DB, else
 * .agentboard/agentboard.db. The build served: this checkout's `.next/` (built when a source is
 * newer), or AGENTBOARD_APP_DIR's, served as it is. Without AGENTBOARD_ADMIN_TOKEN, on a
 * loopback address, a token is made for this run and a sign-in link printed; on any other
 * address nothing is made (a link there would hand the board to whoever reads the address).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { closeDatabase, connectDatabase, DEFAULT_DB_FILE, isPostgresUrl } from "../db/client";
import { loadDemoEntries } from "../lib/submissions/demo-entries";
import { createScoringDeps } from "../lib/submissions/scoring-deps";
import { agentboardVersion } from "./commands/build-info";
import { buildDemo, DEMO_DIR, NVIDIA_DEMO_DIR } from "./demo/build-demo";
import { demoBuildNeeded, demoInputsHash, writeDemoStamp } from "./demo/build-stamp";
import { spawnServer } from "./server/spawn-server";
import { isLoopback, signInLink } from "./server/sign-in-link";

const USAGE = "usage: npm run start:demo [-- --port 3000] [--host 127.0.0.1] [--no-serve]\n";
const flags = (() => {
  try {
    return parseArgs({ options: { port: { type: "string", default: "3000" }, host: { type: "string", default: "127.0.0.1" }, "no-serve": { type: "boolean" }, help: { type: "boolean", short: "h" } } }).values;
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    process.exit(2);
  }
})();
if (flags.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const port = Number(flags.port);
if (!Number.isInteger(port) || port < 1 || port > 65_535) {
  process.stderr.write(`--port must be a port number from 1 to 65535, not ${JSON.stringify(flags.port)}\n${USAGE}`);
  process.exit(2);
}
const host = flags.host;
const repo = path.resolve(import.meta.dirname, "..");

// Hosted mode (AGENTBOARD_DATABASE_URL=postgres://…) uses that database; else the SQLite file, as always.
const configured = process.env.AGENTBOARD_DATABASE_URL || undefined;
const pgUrl = configured && isPostgresUrl(configured) ? configured : null;
const dbFile = path.resolve((pgUrl ? undefined : configured) ?? process.env.AGENTBOARD_DB ?? DEFAULT_DB_FILE);
const env: NodeJS.ProcessEnv = { ...process.env, ...(pgUrl ? {} : { AGENTBOARD_DB: dbFile, AGENTBOARD_DATABASE_URL: "" }), NEXT_TELEMETRY_DISABLED: "1" };
const say = (s: string) => process.stdout.write(`${s}\n`);
/** Seconds since `from`; by default since this process started (performance.now()'s origin), module loading included. */
const seconds = (from = 0) => `${((performance.now() - from) / 1000).toFixed(1)} s`;
/** A database URL fit to print: the password is not. */
function withoutPassword(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = "***";
  return u.toString();
}

say(`Database ${pgUrl ? withoutPassword(pgUrl) : path.relative(process.cwd(), dbFile)} (migrations applied)`);
const db = await connectDatabase(pgUrl ?? dbFile);

const inputs = await demoInputsHash();
const why = await demoBuildNeeded(DEMO_DIR, inputs);
if (why === null) say(`Demo benchmark ${path.relative(process.cwd(), DEMO_DIR)}/ unchanged since its last build (generator and files as recorded): not rebuilt`);
else {
  say(`Building the demo benchmark (${why}: databases, ground truth executed over MCP, sample submissions)…`);
  const built = await buildDemo({ log: (l) => process.stderr.write(`  ${l}\n`) });
  await writeDemoStamp(DEMO_DIR, inputs);
  say(`  ${built.dialogues} dialogues in ${path.relative(process.cwd(), DEMO_DIR)}/`);
}

say("Calibrating each demo's judge on its labelled cases, then ingesting, scoring (MCP replay, the benchmark's judge) and publishing the sample submissions…");
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
say(`Data ready in ${seconds()}.`);
if (flags["no-serve"]) process.exit(0);

const appDir = process.env.AGENTBOARD_APP_DIR ? path.resolve(process.env.AGENTBOARD_APP_DIR) : process.cwd();
const buildId = path.join(appDir, ".next/BUILD_ID");
if (process.env.AGENTBOARD_APP_DIR) {
  // Another folder's build is served as it is: building it is that folder's business.
  if (!existsSync(buildId)) {
    process.stderr.write(`AGENTBOARD_APP_DIR=${process.env.AGENTBOARD_APP_DIR} holds no production build (.next/BUILD_ID)\n`);
    process.exit(1);
  }
} else {
  // Build the app when there is no build or a source is newer than it.
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
    say(`Web app built in ${seconds(buildStarted)}.`);
  }
}

// Maintainer sign-in: the token set, a token made for this run (loopback only), or how to set one.
const urlHost = host.includes(":") ? `[${host}]` : host;
const origin = `http://${urlHost}:${port}`;
const serverEnv: NodeJS.ProcessEnv = { ...env };
let signIn: string;
if (process.env.AGENTBOARD_ADMIN_TOKEN?.trim()) signIn = `Maintainer sign-in: ${origin}/admin (with the token in AGENTBOARD_ADMIN_TOKEN)`;
else if (isLoopback(host)) {
  serverEnv.AGENTBOARD_ADMIN_TOKEN = randomBytes(24).toString("base64url");
  signIn = `Maintainer sign-in (a token made for this run; open the link on this machine): ${signInLink(origin, serverEnv.AGENTBOARD_ADMIN_TOKEN)}`;
} else {
  signIn = `Maintainer sign-in is off: on ${host} no token is made for you. Set one, e.g. AGENTBOARD_ADMIN_TOKEN=$(openssl rand -hex 24) npm run start:demo -- --host ${host}, and sign in with it at ${origin}/admin`;
}

say(`Starting the server on ${origin}…`);
/** What this job started and still runs, by the name its messages give it. */
const children = new Map<ChildProcess, string>();
let stopping = false;
let exitCode = 0;
const server = spawnServer({ port, host, cwd: process.cwd(), env: serverEnv, stdio: "inherit" });
children.set(server, "the server");
server.on("exit", (code, signal) => {
  children.delete(server);
  if (!stopping) {
    process.stderr.write(`the server stopped (${signal ?? `exit ${code}`}); stopping the worker\n`);
    stop(code || 1);
  } else if (children.size === 0) process.exit(exitCode);
});

/** How long the server and the worker get to end cleanly once asked (a job in hand goes back to the queue). */
const STOP_GRACE_MS = 10_000;

function stop(code = 0) {
  if (stopping) return;
  exitCode = code;
  stopping = true;
  for (const c of children.keys()) if (c.exitCode === null && c.signalCode === null) c.kill("SIGTERM");
  if (children.size === 0) process.exit(exitCode);
  // Ctrl-C must end the job whatever a child is stuck on: what is still running then is killed, and named.
  setTimeout(() => {
    for (const [c, name] of children) {
      process.stderr.write(`${name} did not stop within ${STOP_GRACE_MS / 1000} s: killed\n`);
      c.kill("SIGKILL");
    }
  }, STOP_GRACE_MS);
}
process.on("SIGINT", () => stop(0));
process.on("SIGTERM", () => stop(0));

/** The worker, from source (a test run may rebuild dist/cli meanwhile), its lines prefixed. */
function startWorker(): void {
  const at = performance.now();
  const worker = spawn(process.execPath, ["--import", "tsx", path.join(repo, "scripts/cli.ts"), "worker"], { cwd: process.cwd(), env, stdio: ["ignore", "pipe", "pipe"] });
  children.set(worker, "the worker");
  for (const stream of [worker.stdout, worker.stderr]) createInterface({ input: stream }).on("line", (l) => process.stdout.write(`worker: ${l}\n`));
  worker.on("exit", (code, signal) => {
    children.delete(worker);
    if (stopping) {
      if (children.size === 0) process.exit(exitCode);
      return;
    }
    // A worker that stops at once (a wrong setting) would only stop again: everything stops, with its message above.
    const ranMs = performance.now() - at;
    if (ranMs < 10_000) {
      process.stderr.write(`the worker stopped at start-up (${signal ?? `exit ${code}`}): see its message above; stopping the server\n`);
      stop(code || 1);
      return;
    }
    process.stderr.write(`the worker stopped (${signal ?? `exit ${code}`}); starting another\n`);
    setTimeout(() => stopping || startWorker(), 1000);
  });
}

// Ready when `/` answers (that also fills its cache); the worker starts then, so it does not slow the start.
const probe = `http://${host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "[::1]" : urlHost}:${port}/`;
while (!stopping && !(await fetch(probe).then((r) => r.ok, () => false))) await new Promise((r) => setTimeout(r, 100));
if (!stopping) {
  say(`Serving the leaderboard on ${origin} (ready ${seconds()} after start; Ctrl-C stops the server and the worker)`);
  say(signIn);
  startWorker();
  say("A worker scores what arrives: ./agentboard submit, GitHub issues, rescores from /admin.");
}
