/**
 * The production server: Next's request handler behind a response cache for `/` and
 * `/api/leaderboard` (see response-cache.ts). `next start` serves the same app without
 * the cache. Usage: `tsx scripts/server/serve.ts [--host 127.0.0.1] [--port 3000] [--processes N]`.
 *
 * `--processes N` (or AGENTBOARD_WEB_PROCESSES; default 1) runs N server processes sharing the
 * port (node:cluster): a page's rendering takes one core, so a replica on a machine of N cores
 * serves N pages at once. They share nothing in memory that must agree (sessions, sign-in
 * limits and data are in the database); each keeps its own response cache.
 */
import cluster from "node:cluster";
import { createServer } from "node:http";
import next from "next";
import { pageDb } from "../../lib/queries/db";
import { dataVersion } from "../../lib/queries/memo";
import { cacheLimitsFromEnv, createResponseCache } from "./response-cache";
import { securityHeaders } from "./security-headers.mjs";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

const MAX_PROCESSES = 64;
const hostname = arg("host", "127.0.0.1");
const port = Number(arg("port", process.env.PORT ?? "3000"));
const processes = Number(arg("processes", process.env.AGENTBOARD_WEB_PROCESSES || "1"));
if (!Number.isInteger(processes) || processes < 1 || processes > MAX_PROCESSES) {
  console.error(`agentboard: --processes (AGENTBOARD_WEB_PROCESSES) must be a whole number from 1 to ${MAX_PROCESSES}, not ${JSON.stringify(String(processes))}`);
  process.exit(2);
}
process.env.NEXT_TELEMETRY_DISABLED = "1";

if (processes > 1 && cluster.isPrimary) supervise();
else await serve();

/** The primary of several: starts the servers, replaces one that dies, and stops them all on a signal. */
function supervise() {
  let stopping = false;
  for (let i = 0; i < processes; i++) cluster.fork();
  cluster.on("exit", (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      return;
    }
    console.error(`agentboard: server process ${worker.process.pid} ended (${signal ?? code}); starting another`);
    cluster.fork();
  });
  let listening = 0;
  cluster.on("listening", () => {
    if (++listening === processes) console.log(`agentboard: serving on http://${hostname}:${port} (${processes} processes)`);
  });
  const stop = () => {
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill("SIGTERM");
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

async function serve() {
  const app = next({ dev: false, hostname, port, dir: process.cwd() });
  const handle = app.getRequestHandler();
  await app.prepare();

  const cache = createResponseCache({ origin: `http://${hostname}:${port}`, version: async () => dataVersion(await pageDb()), limits: cacheLimitsFromEnv(process.env) });
  const SECURITY_HEADERS = securityHeaders();

  const server = createServer((req, res) => {
    // On every response, cached or not: writeHead merges these with the response's own headers.
    for (const h of SECURITY_HEADERS) res.setHeader(h.key, h.value);
    cache
      .serve(req, res)
      .then((served) => (served ? undefined : handle(req, res)))
      .catch((err: unknown) => {
        console.error(err);
        if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
        res.end("internal error");
      });
  });
  server.keepAliveTimeout = 65_000;
  server.listen(port, hostname, () => {
    if (cluster.isPrimary) console.log(`agentboard: serving on http://${hostname}:${port}`);
  });

  const stop = () => server.close(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
