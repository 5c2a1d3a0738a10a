/**
 * A plain HTTP file server on 127.0.0.1 for bundle-download tests: fixed bytes at a path,
 * redirects (relative, absolute, or to a private address), slow streams, endless streams with
 * or without a Content-Length, and requests that never get an answer. Reach it through
 * `downloadBundle`'s test-only `allowLoopbackHttp` switch. Every request is logged with the
 * Host header it carried, and bytes written per path are counted so a test can see that the
 * client stopped reading.
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FileRoute {
  status?: number;
  headers?: Record<string, string>;
  /** Send a Content-Length header (default true). */
  contentLength?: boolean;
}

export interface StreamRoute {
  /** Bytes per chunk (default 64 KiB). */
  chunkBytes?: number;
  /** Pause between chunks (default 0: as fast as the socket takes them). */
  intervalMs?: number;
  /** Total bytes; default endless (until the client goes away). */
  totalBytes?: number;
  /** A Content-Length to declare (it may lie); default none. */
  declaredLength?: number;
}

export interface ServedRequest {
  method: string;
  path: string;
  /** The Host header, which shows the name the client used. */
  host: string;
}

export interface FakeFileServer {
  /** `http://127.0.0.1:<port>` */
  readonly baseUrl: string;
  readonly port: number;
  readonly requests: readonly ServedRequest[];
  /** `http://<host>:<port><path>`; host defaults to 127.0.0.1. */
  url(path: string, host?: string): string;
  serve(path: string, body: Buffer | string, route?: FileRoute): void;
  redirect(path: string, location: string, status?: number): void;
  /** A redirect to a private address, e.g. the cloud metadata endpoint. */
  redirectToPrivate(path: string, address?: string): void;
  stream(path: string, route?: StreamRoute): void;
  /** Accepts the request and never answers. */
  hang(path: string): void;
  bytesSent(path: string): number;
  close(): Promise<void>;
}

type Handler = (res: ServerResponse, path: string) => void;

export async function startFakeFileServer(): Promise<FakeFileServer> {
  const routes = new Map<string, Handler>();
  const requests: ServedRequest[] = [];
  const sent = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  const count = (path: string, n: number) => sent.set(path, (sent.get(path) ?? 0) + n);

  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    requests.push({ method: req.method ?? "GET", path, host: req.headers.host ?? "" });
    const handler = routes.get(path);
    if (!handler) {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not found");
      return;
    }
    handler(res, path);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const baseUrl = `http://127.0.0.1:${port}`;

  const stream = (path: string, route: StreamRoute = {}) => {
    const chunk = Buffer.alloc(route.chunkBytes ?? 65_536, 0x61);
    routes.set(path, (res) => {
      const headers: Record<string, string> = { "content-type": "application/zip" };
      if (route.declaredLength !== undefined) headers["content-length"] = String(route.declaredLength);
      res.writeHead(200, headers);
      let left = route.totalBytes ?? Number.POSITIVE_INFINITY;
      let closed = false;
      res.on("close", () => (closed = true));
      const pump = () => {
        while (!closed && left > 0) {
          const piece = left < chunk.length ? chunk.subarray(0, left) : chunk;
          left -= piece.length;
          count(path, piece.length);
          const more = res.write(piece);
          if (left <= 0) return void res.end();
          if (route.intervalMs) {
            const t = setTimeout(() => (timers.delete(t), pump()), route.intervalMs);
            timers.add(t);
            return;
          }
          if (!more) return void res.once("drain", pump);
        }
      };
      pump();
    });
  };

  return {
    baseUrl,
    port,
    requests,
    url: (path, host = "127.0.0.1") => `http://${host}:${port}${path}`,
    serve(path, body, route = {}) {
      const bytes = typeof body === "string" ? Buffer.from(body) : body;
      routes.set(path, (res) => {
        const headers: Record<string, string> = { "content-type": "application/zip", ...(route.headers ?? {}) };
        if (route.contentLength === false) {
          res.writeHead(route.status ?? 200, headers); // chunked
        } else {
          res.writeHead(route.status ?? 200, { ...headers, "content-length": String(bytes.length) });
        }
        count(path, bytes.length);
        res.end(bytes);
      });
    },
    redirect(path, location, status = 302) {
      routes.set(path, (res) => {
        res.writeHead(status, { location, "content-length": "0" });
        res.end();
      });
    },
    redirectToPrivate(path, address = "169.254.169.254") {
      const host = address.includes(":") ? `[${address}]` : address;
      routes.set(path, (res) => {
        res.writeHead(302, { location: `http://${host}/latest/meta-data/`, "content-length": "0" });
        res.end();
      });
    },
    stream,
    hang(path) {
      routes.set(path, () => undefined);
    },
    bytesSent: (path) => sent.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
