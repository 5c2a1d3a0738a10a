/**
 * The whole test suite: typecheck, production build, then vitest (unit, integration,
 * browser). Prints one plain closing line `N passed, N failed` (typecheck and build count as
 * one test each; a vitest file that fails without a failing test counts as one failure) and
 * exits non-zero on any failure.
 *
 * Nothing here touches what a main job running from this checkout serves: the build is the
 * suite's own (scripts/test-app.ts, in .agentboard/test-app/), and every database, port and
 * Postgres cluster the tests use is theirs alone.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { countVitestReport, type VitestReport } from "./count-vitest-report";
import { startPgCluster, type PgCluster } from "./pg-cluster";
import { APP_DIR_ENV, testAppDir } from "./test-app";

const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
const args = process.argv.slice(2);
let passed = 0;
let failed = 0;

process.stdout.write("== typecheck (tsc --noEmit)\n");
const tsc = spawnSync("npx", ["tsc", "--noEmit", "-p", "tsconfig.json"], { stdio: "inherit", env });
if (tsc.status === 0) passed++;
else failed++;

// The browser tests run against a production build of their own, made once here (a child
// process: test/e2e/test-build-beside-main-job.test.ts runs this very command beside a main job).
process.stdout.write(`== next build (the tests' own copy: ${path.relative(process.cwd(), testAppDir())}/)\n`);
const build = spawnSync(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "test-app.ts")], { stdio: "inherit", env });
if (build.status === 0) passed++;
else failed++;
env[APP_DIR_ENV] = testAppDir();

// The database, queue, worker, intake and web tests run on SQLite and on a throwaway Postgres
// cluster started here (one test counts whether it started).
process.stdout.write("== postgres (throwaway cluster on 127.0.0.1)\n");
let cluster: PgCluster | undefined;
try {
  cluster = await startPgCluster();
  env.AGENTBOARD_TEST_PG_URL = cluster.url;
  process.stdout.write(`started at ${cluster.url}\n`);
  passed++;
} catch (err) {
  process.stdout.write(`could not start Postgres: ${err instanceof Error ? err.message : String(err)}\n`);
  failed++;
}
const stopCluster = () => cluster?.stop();
process.on("exit", stopCluster);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(130));

const dir = mkdtempSync(path.join(tmpdir(), "agentboard-tests-"));
const report = path.join(dir, "vitest.json");
process.stdout.write("== vitest\n");
const vitest = spawnSync("npx", ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...args], { stdio: "inherit", env });
try {
  const count = countVitestReport(JSON.parse(readFileSync(report, "utf8")) as VitestReport);
  passed += count.passed;
  failed += count.failed;
  for (const file of count.brokenFiles) process.stdout.write(`failed with no failing test (load error or failed hook): ${path.relative(process.cwd(), file)}\n`);
} catch {
  failed++;
  process.stdout.write("vitest wrote no report (crashed before running tests)\n");
}
if (vitest.status !== 0 && failed === 0) failed++;
rmSync(dir, { recursive: true, force: true });
stopCluster();

process.stdout.write(`${passed} passed, ${failed} failed\n`);
process.exitCode = failed === 0 && passed > 0 ? 0 : 1;
