/**
 * The judge's HTTP POST, on node:http(s) with kept-alive connections. fetch (undici and its web
 * streams) cost about 4 s of CPU and 90 MB of memory for the ~5,500 requests of a VAKRA-sized
 * compat run; node:http about 1 s (issue 28 part 4, `npm run bench:score`'s compat run). A
 * reply is read whole, at most MAX_REPLY_BYTES (a judge's reply is small; a hostile endpoint
 * must not fill memory), and offers what chat-client.ts reads of a fetch Response.
 */
import http from "node:http";
import https from "node:https";

/** What the chat client reads of a reply: a fetch Response has all of it, so tests may pass fetch. */
export interface PostReply {
  status: number;
  ok: boolean;
  headers: { get(name: string): string | null };
  body?: { cancel(): Promise<void> } | null;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

export interface PostInit {
  method: "POST";
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
}

export type HttpPost = (url: string, init: PostInit) => Promise<PostReply>;

export const MAX_REPLY_BYTES = 16 * 1024 * 1024;

// Kept alive across requests (and unreferenced while idle, so they never hold the process open).
const agents = { "http:": new http.Agent({ keepAlive: true }), "https:": new https.Agent({ keepAlive: true }) };

export const httpPost: HttpPost = (url, init) =>
  new Promise((resolve, reject) => {
    const target = new URL(url);
    const client = target.protocol === "https:" ? https : http;
    const body = Buffer.from(init.body, "utf8");
    const req = client.request(target, { method: init.method, agent: agents[target.protocol as keyof typeof agents], headers: { ...init.headers, "content-length": String(body.length) }, signal: init.signal }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_REPLY_BYTES) {
          res.destroy();
          reject(new Error(`the reply is larger than ${MAX_REPLY_BYTES} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.on("error", reject);
      res.on("aborted", () => reject(new Error("the connection closed before the reply ended")));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const status = res.statusCode ?? 0;
        resolve({
          status,
          ok: status >= 200 && status < 300,
          headers: { get: (name) => headerOf(res.headers[name.toLowerCase()]) },
          body: { cancel: async () => {} },
          text: async () => text,
          json: async () => JSON.parse(text) as unknown,
        });
      });
    });
    req.on("error", reject);
    req.end(body);
  });

function headerOf(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(", ") : value;
}
