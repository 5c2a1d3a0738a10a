/**
 * A hostile stand-in for an Agentboard server on 127.0.0.1, for `agentboard verify <entry URL>`:
 * routes keyed by path and query (so each verdict page can answer differently), JSON answers,
 * redirects, and bodies streamed from repeated bytes (60 MB of `[`, with or without a
 * Content-Length) with backpressure, counting what was written so a test can see that the
 * client stopped reading. Every request is logged.
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A run of one repeated byte: `{ byte: "[", count: 30_000_000 }`. */
export interface BytePiece {
  byte: string;
  count: number;
}

export interface FakeEntryServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** Every request's path and query, in order. */
  readonly requests: readonly string[];
  json(pathAndQuery: string, value: unknown): void;
  redirect(pathAndQuery: string, location: string, status?: number): void;
  /** A 200 whose body is the pieces in order, chunked (no Content-Length). */
  stream(pathAndQuery: string, pieces: readonly BytePiece[]): void;
  /** Bytes handed to the socket for this path and query. */
  bytesSent(pathAndQuery: string): number;
  close(): Promise<void>;
}

type Handler = (res: ServerResponse, key: string) => void;

export async function startFakeEntryServer(): Promise<FakeEntryServer> {
  const routes = new Map<string, Handler>();
  const requests: string[] = [];
  const sent = new Map<string, number>();
  const count = (key: string, n: number) => sent.set(key, (sent.get(key) ?? 0) + n);
  const server = createServer((req, res) => {
    const key = req.url ?? "/";
    requests.push(key);
    const handler = routes.get(key);
    if (!handler) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "not_found" }));
      return;
    }
    handler(res, key);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    origin,
    requests,
    json(key, value) {
      const body = Buffer.from(JSON.stringify(value));
      routes.set(key, (res) => {
        res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": String(body.length) });
        count(key, body.length);
        res.end(body);
      });
    },
    redirect(key, location, status = 302) {
      routes.set(key, (res) => {
        res.writeHead(status, { location, "content-length": "0" });
        res.end();
      });
    },
    stream(key, pieces) {
      routes.set(key, (res) => {
        res.writeHead(200, { "content-type": "application/json" });
        let closed = false;
        res.on("close", () => (closed = true));
        let piece = 0;
        let left = pieces[0]?.count ?? 0;
        const pump = () => {
          while (!closed) {
            while (left === 0 && piece < pieces.length - 1) left = pieces[++piece]!.count;
            if (left === 0) return void res.end();
            const n = Math.min(left, 65_536);
            left -= n;
            count(key, n);
            if (!res.write(Buffer.alloc(n, pieces[piece]!.byte))) return void res.once("drain", pump);
          }
        };
        pump();
      });
    },
    bytesSent: (key) => sent.get(key) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
