/**
 * The production server: Next's request handler behind a response cache for the public pages
 * (response-cache.ts) and a render gate that bounds how many heavy pages render at once, per
 * client and per process (render-gate.ts; which pages: page-routes.ts). `next start` serves the
 * same app without either. Usage:
 * `tsx scripts/server/serve.ts [--host 127.0.0.1] [--port 3000] [--processes N]`.
 *
 * `--processes N` (or AGENTBOARD_WEB_PROCESSES; default 1) runs N server processes sharing the
 * port (node:cluster): a page's rendering takes one core, so a replica on a machine of N cores
 * serves N pages at once. They share nothing in memory that must agree (sessions, sign-in
 * limits and data are in the database); each keeps its own response cache.
 *
 * The build served is the working folder's `.next/`, or that of AGENTBOARD_APP_DIR: the test
 * command serves its own build so (scripts/test-app.ts), with the checkout as working folder.
 * On a loopback address it also answers the main job's sign-in link (sign-in-link.ts).
 */
import cluster from "node:cluster";
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import next from "next";
import { pageDb } from "../../lib/queries/db";
import { dataVersion } from "../../lib/queries/memo";
import { CLIENT_HEADER, SERVER_TOKEN_ENV } from "../../app/admin/forwarded-for";
import { clientKeyOf, clientKeyOptionsFromEnv } from "./client-key";
import { pageRouteOf } from "./page-routes";
import { createRenderGate, DOWNLOAD_GATE_LIMITS, renderGateLimitsFromEnv, RenderRefused, type RenderGateLimits } from "./render-gate";
import { cacheLimitsFromEnv, createResponseCache, type Gate } from "./response-cache";
import { securityHeaders } from "./security-headers.mjs";
import { answerSignInLink, isLoopback } from "./sign-in-link";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

const MAX_PROCESSES = 64;
/** How long a response under way may keep a stopping server (a signal) before it exits regardless. */
const STOP_GRACE_MS = 5_000;
const hostname = arg("host", "127.0.0.1");
const port = Number(arg("port", process.env.PORT ?? "3000"));
const processes = Number(arg("processes", process.env.AGENTBOARD_WEB_PROCESSES || "1"));
if (!Number.isInteger(processes) || processes < 1 || processes > MAX_PROCESSES) {
  console.error(`agentboard: --processes (AGENTBOARD_WEB_PROCESSES) must be a whole number from 1 to ${MAX_PROCESSES}, not ${JSON.stringify(String(processes))}`);
  process.exit(2);
}
let gateLimits: RenderGateLimits;
try {
  gateLimits = renderGateLimitsFromEnv(process.env);
} catch (err) {
  console.error(`agentboard: ${(err as Error).message}`);
  process.exit(2);
}
process.env.NEXT_TELEMETRY_DISABLED = "1";
// The server's secret, one for all processes of the port: it marks the response cache's own
// renders (a render may reach any process, and must not be taken for a client's request there)
// and vouches for the client key this server puts on each request (CLIENT_HEADER).
if (cluster.isPrimary) process.env[SERVER_TOKEN_ENV] = randomBytes(16).toString("hex");

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

/**
 * A client router's prefetch of a link in view. Without PPR, Next answers it without rendering
 * the page: the layouts down to the nearest `loading` component at most (the app has none, so
 * the route's shape only). Cheap, so not gated: a page of links would spend a visitor's share
 * of heavy renders on prefetches.
 */
function isPrefetch(req: IncomingMessage): boolean {
  return req.headers["next-router-prefetch"] !== undefined;
}

async function serve() {
  const app = next({ dev: false, hostname, port, dir: process.env.AGENTBOARD_APP_DIR || process.cwd() });
  const handle = app.getRequestHandler();
  await app.prepare();

  const cache = createResponseCache({
    origin: `http://${hostname}:${port}`,
    version: async () => dataVersion(await pageDb()),
    limits: cacheLimitsFromEnv(process.env),
    renderToken: process.env[SERVER_TOKEN_ENV],
  });
  const gate = createRenderGate(gateLimits);
  const downloadGate = createRenderGate(DOWNLOAD_GATE_LIMITS);
  const clientOptions = clientKeyOptionsFromEnv(process.env);
  const SECURITY_HEADERS = securityHeaders();
  const signInLinks = isLoopback(hostname);

  /** Next's answer, done: the gate's turn lasts until the response has ended (or the client left). */
  const handleFully = (req: IncomingMessage, res: ServerResponse) =>
    Promise.all([handle(req, res), res.writableFinished ? undefined : new Promise((r) => res.once("close", r))]);

  async function respond(req: IncomingMessage, res: ServerResponse) {
    // The cache's own render of a miss: the request that missed holds the gate's turn for it.
    if (cache.isRender(req)) return handle(req, res);
    const route = pageRouteOf(new URL(req.url ?? "/", "http://localhost").pathname);
    const client = clientKeyOf(req, clientOptions);
    // The app's limits (sign-in, webhook slots) read the client from here; a client's own copy is replaced.
    req.headers[CLIENT_HEADER] = `${process.env[SERVER_TOKEN_ENV]}:${client}`;
    if (signInLinks && (await answerSignInLink(req, res, client))) return;
    const turnOf = route?.download ? downloadGate : route?.heavy && !isPrefetch(req) ? gate : null;
    const gated: Gate = turnOf ? (work) => turnOf.run(client, work) : (work) => work();
    if (await cache.serve(req, res, gated)) return;
    await gated(() => handleFully(req, res));
  }

  const server = createServer((req, res) => {
    // On every response, cached or not: writeHead merges these with the response's own headers.
    for (const h of SECURITY_HEADERS) res.setHeader(h.key, h.value);
    respond(req, res).catch((err: unknown) => {
      if (err instanceof RenderRefused) {
        if (!res.headersSent) res.writeHead(err.status, { "content-type": "text/plain; charset=utf-8", "retry-after": String(err.retryAfterS), "cache-control": "no-store" });
        res.end(err.status === 429 ? "Too many pages asked for at once from your address: wait for the ones you asked for, then try again.\n" : "The server is busy rendering other pages: try again in a moment.\n");
        return;
      }
      console.error(err);
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end("internal error");
    });
  });
  server.keepAliveTimeout = 65_000;
  server.listen(port, hostname, () => {
    if (cluster.isPrimary) console.log(`agentboard: serving on http://${hostname}:${port}`);
  });

  // close() also ends idle keep-alive connections (Node 19+); a response under way gets a moment to finish.
  const stop = () => {
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), STOP_GRACE_MS).unref();
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
