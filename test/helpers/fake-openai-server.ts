/**
 * A real HTTP server on 127.0.0.1 that speaks just enough of the OpenAI chat-completions
 * API for the judge's tests. Each request takes the next scripted reply (status, delay,
 * body or reply content, Retry-After); when the script runs out, a responder decides
 * (by default: a JSON verdict that passes, for whichever task the prompt asks about).
 * Every request is recorded, and the number in flight is tracked.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeReply {
  /** HTTP status; 200 unless given. */
  status?: number;
  /** Wait this long before answering (the request counts as in flight meanwhile). */
  delayMs?: number;
  /** The assistant message content, wrapped in a well-formed chat completion. */
  content?: string;
  /** A raw body instead (a string is sent as is, anything else as JSON). Wins over `content`. */
  body?: unknown;
  /** A Retry-After header, in seconds. */
  retryAfter?: number | string;
  headers?: Record<string, string>;
}

export interface RecordedRequest {
  /** 0-based arrival order. */
  index: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

export type Responder = (req: RecordedRequest) => FakeReply;

export interface FakeOpenAiServer {
  /** `http://127.0.0.1:<port>`: pass it as the judge's `baseUrl`. */
  readonly baseUrl: string;
  readonly requests: readonly RecordedRequest[];
  readonly requestCount: number;
  /** Requests received and not yet answered. */
  readonly inFlight: number;
  /** The most requests ever in flight at once. */
  readonly maxInFlight: number;
  /** Scripts the next requests, in order. */
  enqueue(...replies: FakeReply[]): void;
  /** Decides replies once the script is used up. */
  setResponder(responder: Responder): void;
  close(): Promise<void>;
}

/** A well-formed chat-completions response body. */
export function chatCompletion(content: unknown, model = "fake-model"): Record<string, unknown> {
  return {
    id: "chatcmpl-fake",
    object: "chat.completion",
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

/** The system prompt of a recorded request (empty when there is none). */
export function systemPrompt(req: RecordedRequest): string {
  const messages = (req.json as { messages?: { role?: string; content?: string }[] } | undefined)?.messages ?? [];
  return messages.find((m) => m.role === "system")?.content ?? "";
}

/** Passes whatever is asked: `correct` for correctness, `grounded` for groundedness. */
export const passingResponder: Responder = (req) =>
  /grounded/i.test(systemPrompt(req))
    ? { content: JSON.stringify({ verdict: "grounded", reason: "fake: grounded" }) }
    : { content: JSON.stringify({ verdict: "correct", reason: "fake: correct" }) };

export async function startFakeOpenAiServer(responder: Responder = passingResponder): Promise<FakeOpenAiServer> {
  const script: FakeReply[] = [];
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let respond = responder;
  let inFlight = 0;
  let maxInFlight = 0;

  const send = (res: ServerResponse, reply: FakeReply, model: string) => {
    const status = reply.status ?? 200;
    const headers: Record<string, string> = { "content-type": "application/json", ...(reply.headers ?? {}) };
    if (reply.retryAfter !== undefined) headers["retry-after"] = String(reply.retryAfter);
    let body: string;
    if (reply.body !== undefined) body = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body);
    else if (reply.content !== undefined) body = JSON.stringify(chatCompletion(reply.content, model));
    else if (status >= 400) body = JSON.stringify({ error: { message: `fake error ${status}`, type: "fake" } });
    else body = JSON.stringify(chatCompletion(JSON.stringify({ verdict: "correct", reason: "fake default" }), model));
    res.writeHead(status, headers);
    res.end(body);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks).toString("utf8");
      let json: unknown;
      try {
        json = JSON.parse(rawBody);
      } catch {
        json = undefined;
      }
      const path = (req.url ?? "/").split("?")[0] ?? "/";
      const recorded: RecordedRequest = { index: requests.length, method: req.method ?? "", path, headers: req.headers, rawBody, json };
      requests.push(recorded);
      if (req.method !== "POST" || !path.endsWith("/chat/completions")) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `no route for ${req.method} ${path}` } }));
        return;
      }
      const reply = script.shift() ?? respond(recorded);
      const model = typeof (json as { model?: unknown } | undefined)?.model === "string" ? (json as { model: string }).model : "fake-model";

      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      let open = true;
      const finish = () => {
        if (!open) return;
        open = false;
        inFlight--;
      };
      const answer = () => {
        if (!open) return;
        // Counted as answered before the bytes leave, so a client can never see a reply
        // while the server still counts that request in flight.
        finish();
        send(res, reply, model);
      };
      res.on("close", () => {
        clearTimeout(timer);
        timers.delete(timer);
        finish();
      });
      const timer = setTimeout(() => {
        timers.delete(timer);
        answer();
      }, reply.delayMs ?? 0);
      timers.add(timer);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    get requestCount() {
      return requests.length;
    },
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    enqueue(...replies) {
      script.push(...replies);
    },
    setResponder(r) {
      respond = r;
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}

/**
 * Client options for fault tests against the fake: short timeout, three attempts, and a
 * sleep that records its delays instead of waiting (with no jitter, so delays are exact).
 */
export function fastRetries(baseUrl: string, sleeps: number[]) {
  return {
    baseUrl,
    timeoutMs: 5_000,
    maxAttempts: 3,
    baseDelayMs: 100,
    sleep: async (ms: number) => {
      sleeps.push(ms);
    },
    random: () => 1,
  };
}
