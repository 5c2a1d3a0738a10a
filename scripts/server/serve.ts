/**
 * The production server: Next's request handler behind a response cache for `/` and
 * `/api/leaderboard` (see response-cache.ts). `next start` serves the same app without
 * the cache. Usage: `tsx scripts/server/serve.ts [--host 127.0.0.1] [--port 3000]`.
 */
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

const hostname = arg("host", "127.0.0.1");
const port = Number(arg("port", process.env.PORT ?? "3000"));
process.env.NEXT_TELEMETRY_DISABLED = "1";

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
server.listen(port, hostname, () => console.log(`agentboard: serving on http://${hostname}:${port}`));

const stop = () => server.close(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
