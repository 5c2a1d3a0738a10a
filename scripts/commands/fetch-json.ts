/**
 * One JSON document from a server the user named but nobody vouches for (`verify <entry URL>`).
 * Whatever it answers, the cost is bounded before a value is built: redirects are followed only
 * within the origin (scheme, host and port) the caller names, and only so many; the body is
 * streamed and reading stops at the byte cap; the bytes are scanned once for nesting depth and
 * value count (lib/formats/read-json.ts `scanJson`) before JSON.parse; one timeout covers the
 * redirects and the body. Every refusal is a usage error (exit 2) naming the URL and the limit.
 */
import { readJson, scanJson } from "../../lib/formats/read-json";
import { CliError } from "./cli-errors";

export interface JsonFetchLimits {
  /** Bytes of one answer (its body), at most. */
  maxBytes: number;
  /** Nesting of objects and arrays in it (the root is level 1). */
  maxDepth: number;
  /** JSON values in it. */
  maxValues: number;
  /** Same-origin redirects followed before the answer. */
  maxRedirects: number;
  /** One document: every redirect and the whole body. */
  timeoutMs: number;
  /** The environment variable that sets each limit, named in the refusal. */
  names: { maxBytes: string; maxDepth: string; maxValues: string; maxRedirects: string; timeoutMs: string };
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MiB = 1024 ** 2;

const bad = (message: string) => new CliError(message, 2);
const setting = (name: string, value: number | string) => `${name}=${value}`;

/** GET `url` (its origin must be `origin`) and parse the JSON answer within `limits`. */
export async function fetchJson(url: string, origin: string, limits: JsonFetchLimits): Promise<unknown> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  const timeoutText = `no complete answer within ${limits.timeoutMs / 1000} s (${setting(limits.names.timeoutMs, limits.timeoutMs / 1000)})`;
  const failed = (where: string, err: unknown) =>
    bad(`${where}: ${signal.aborted ? timeoutText : err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err)}`);
  let current = url;
  let res: Response;
  for (let hops = 0; ; hops++) {
    try {
      res = await fetch(current, { headers: { Accept: "application/json" }, redirect: "manual", signal });
    } catch (err) {
      throw failed(`cannot fetch ${current}`, err);
    }
    if (!REDIRECTS.has(res.status)) break;
    await res.body?.cancel().catch(() => {});
    const location = res.headers.get("location");
    let next: URL;
    try {
      next = new URL(location ?? "", current);
    } catch {
      throw bad(`${current} answered ${res.status} with an unusable Location (${JSON.stringify(location?.slice(0, 200) ?? null)})`);
    }
    if (!location) throw bad(`${current} answered ${res.status} without a Location`);
    // A redirect elsewhere could send the verify to a host the user never named (another port
    // on the same machine included): only the origin of the entry's URL is asked.
    if (next.origin !== origin) throw bad(`${current} redirects to ${next.href.slice(0, 500)}, another origin than ${origin} (scheme, host and port must stay the same): not followed`);
    if (hops >= limits.maxRedirects) throw bad(`${url}: more than ${limits.maxRedirects} redirects (${setting(limits.names.maxRedirects, limits.maxRedirects)}); the last one to ${next.href.slice(0, 500)}`);
    current = next.href;
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => {});
    throw bad(`${current} answered ${res.status}${res.status === 404 ? " (no such entry, or it is not published)" : ""}`);
  }
  const tooLarge = () => bad(`${current}: the answer is larger than ${limits.maxBytes / MiB} MiB (${setting(limits.names.maxBytes, limits.maxBytes / MiB)}); stopped reading it`);
  if (Number(res.headers.get("content-length") ?? 0) > limits.maxBytes) {
    await res.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body?.getReader();
  try {
    while (reader) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limits.maxBytes) {
        await reader.cancel().catch(() => {});
        throw tooLarge();
      }
      chunks.push(value);
    }
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw failed(`reading ${current} failed`, err);
  }
  const bytes = Buffer.concat(chunks, size);
  chunks.length = 0;
  const scan = scanJson(bytes, { maxDepth: limits.maxDepth, maxValues: limits.maxValues, maxRecords: Number.POSITIVE_INFINITY });
  if (!scan.ok) {
    const name = scan.code === "too_deep" ? setting(limits.names.maxDepth, limits.maxDepth) : setting(limits.names.maxValues, limits.maxValues);
    const at = scan.path.length > 80 ? `${scan.path.slice(0, 80)}…` : scan.path;
    throw bad(`${current}: ${scan.message.replace(/^file holds/, "the answer holds")} (at ${at}; ${name})`);
  }
  const read = readJson(bytes);
  if (!read.ok) throw bad(`${current} did not answer JSON: ${read.message.replace(/^file is/, "the answer is")}`);
  return read.value;
}
