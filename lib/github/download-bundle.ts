/**
 * Downloads a submission bundle from a submitter-supplied URL without letting that URL reach
 * inside our network (SSRF). Every hop, the first and each redirect, is checked the same way:
 * https only, host on the allowlist, the name resolved here and every address public. The
 * connection then goes to the address that was checked (a pinned `lookup` on the request), so
 * a DNS answer that changes between check and connect (rebinding) cannot slip through.
 * The body is streamed with a size cap and hashed on the way in; one timeout covers it all.
 */
import { createHash } from "node:crypto";
import { lookup as dnsLookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";

export type DownloadErrorCode =
  | "scheme"
  | "host_not_allowed"
  | "private_address"
  | "too_many_redirects"
  | "too_large"
  | "timeout"
  | "http_status"
  | "network";

export class DownloadError extends Error {
  override readonly name = "DownloadError";
  constructor(
    readonly code: DownloadErrorCode,
    message: string,
    /** The URL of the hop that failed. */
    readonly url?: string,
    /** The HTTP status, for `http_status`. */
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has (like `dns.lookup` with `all: true`). */
export type ResolveHost = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export interface DownloadOptions {
  /** Exact host names (`github.com`) or suffix patterns (`*.githubusercontent.com`, subdomains only). */
  allowedHosts: readonly string[];
  maxBytes: number;
  /** Covers the whole download: every lookup, redirect and the body. */
  timeoutMs: number;
  /** Default 3. */
  maxRedirects?: number;
  /** Host resolution; default `dns.lookup(host, {all: true})`. */
  lookup?: ResolveHost;
  /** Tests only: permits http:// and loopback addresses (and http only to loopback). */
  allowLoopbackHttp?: boolean;
  signal?: AbortSignal;
  userAgent?: string;
}

export interface DownloadedBundle {
  bytes: Buffer;
  /** Hex sha256 of `bytes`. */
  sha256: string;
  /** The URL the bytes came from, after redirects. */
  finalUrl: string;
  size: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export async function downloadBundle(url: string, options: DownloadOptions): Promise<DownloadedBundle> {
  const maxRedirects = options.maxRedirects ?? 3;
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new DownloadError("timeout", `download did not finish within ${options.timeoutMs} ms`, url)),
    options.timeoutMs,
  );
  const onCallerAbort = () => deadline.abort(new DownloadError("network", "download aborted", url));
  if (options.signal?.aborted) onCallerAbort();
  options.signal?.addEventListener("abort", onCallerAbort, { once: true });
  try {
    let current = parseUrl(url);
    for (let redirects = 0; ; redirects++) {
      const target = await checkTarget(current, options, deadline.signal);
      const outcome = await fetchOnce(target, options, deadline.signal);
      if (outcome.kind === "body") return { ...outcome.bundle, finalUrl: current.href };
      if (redirects >= maxRedirects) {
        throw new DownloadError("too_many_redirects", `more than ${maxRedirects} redirects (the last one from ${current.href})`, current.href);
      }
      try {
        current = new URL(outcome.location, current);
      } catch {
        throw new DownloadError("http_status", `redirect with an invalid Location header from ${current.href}`, current.href, outcome.status);
      }
    }
  } catch (err) {
    throw deadline.signal.aborted && deadline.signal.reason instanceof DownloadError ? deadline.signal.reason : err;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onCallerAbort);
  }
}

/** Whether `host` is on the allowlist: an exact entry, or a `*.suffix` entry for a subdomain. */
export function isHostAllowed(host: string, allowedHosts: readonly string[]): boolean {
  const h = normaliseHost(host);
  return allowedHosts.some((entry) => {
    const e = normaliseHost(entry);
    return e.startsWith("*.") ? h.endsWith(e.slice(1)) && h.length > e.length - 1 : h === e;
  });
}

/** Parses `BUNDLE_ALLOWED_HOSTS`-style text: entries separated by commas or whitespace. */
export function parseHostAllowlist(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map(normaliseHost)
    .filter((h) => h.length > 0);
}

interface Target {
  url: URL;
  /** The host name without IPv6 brackets. */
  hostname: string;
  address: ResolvedAddress;
}

type FetchOutcome = { kind: "redirect"; location: string; status: number } | { kind: "body"; bundle: Omit<DownloadedBundle, "finalUrl"> };

function parseUrl(text: string): URL {
  try {
    return new URL(text);
  } catch {
    throw new DownloadError("scheme", "not an absolute URL; expected an https URL", text);
  }
}

/** Applies every rule to one hop and returns the address to connect to. */
async function checkTarget(url: URL, options: DownloadOptions, signal: AbortSignal): Promise<Target> {
  const href = url.href;
  const isHttp = url.protocol === "http:";
  if (url.protocol !== "https:" && !(isHttp && options.allowLoopbackHttp)) {
    throw new DownloadError("scheme", `${url.protocol} URLs are refused; expected https (${href})`, href);
  }
  if (url.username || url.password) throw new DownloadError("scheme", `URLs with credentials are refused (${url.host})`, href);
  const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
  if (!isHostAllowed(hostname, options.allowedHosts)) {
    throw new DownloadError("host_not_allowed", `host ${hostname} is not on the bundle host allowlist`, href);
  }
  const addresses = isIP(hostname) ? [{ address: hostname, family: isIP(hostname) as 4 | 6 }] : await resolve(hostname, options, signal, href);
  const allowLoopback = options.allowLoopbackHttp === true;
  for (const a of addresses) {
    const reason = forbiddenAddressReason(a.address, { allowLoopback });
    if (reason) throw new DownloadError("private_address", `host ${hostname} resolves to ${a.address}, ${reason}; refused`, href);
    if (isHttp && !isLoopback(a.address)) {
      throw new DownloadError("scheme", `http is allowed only to loopback addresses (test switch); ${hostname} resolves to ${a.address}`, href);
    }
  }
  return { url, hostname, address: addresses[0]! };
}

async function resolve(hostname: string, options: DownloadOptions, signal: AbortSignal, href: string): Promise<readonly ResolvedAddress[]> {
  const lookup = options.lookup ?? defaultLookup;
  let addresses: readonly ResolvedAddress[];
  try {
    addresses = await raceAbort(lookup(hostname), signal);
  } catch (err) {
    if (err instanceof DownloadError) throw err;
    throw new DownloadError("network", `could not resolve ${hostname}: ${err instanceof Error ? err.message : String(err)}`, href);
  }
  if (addresses.length === 0) throw new DownloadError("network", `could not resolve ${hostname}: no addresses`, href);
  return addresses;
}

const defaultLookup: ResolveHost = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => (signal.removeEventListener("abort", onAbort), resolve(v)),
      (e) => (signal.removeEventListener("abort", onAbort), reject(e)),
    );
  });
}

/** One GET to a checked target: a redirect to follow, or the body, capped and hashed. */
function fetchOnce(target: Target, options: DownloadOptions, signal: AbortSignal): Promise<FetchOutcome> {
  const href = target.url.href;
  const { address, family } = target.address;
  // Whatever name the socket asks for, it gets the address we checked.
  const pinned: LookupFunction = (_hostname, opts, callback) => {
    if (opts.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
  return new Promise<FetchOutcome>((resolve, reject) => {
    let settled = false;
    // Settles once; destroying the request also drops the socket and any response stream.
    const fail = (err: DownloadError) => {
      if (settled) return;
      settled = true;
      req.destroy();
      reject(err);
    };
    const fromNodeError = (err: unknown) =>
      signal.aborted && signal.reason instanceof DownloadError
        ? signal.reason
        : new DownloadError("network", `request to ${target.hostname} failed: ${err instanceof Error ? err.message : String(err)}`, href);

    const request = target.url.protocol === "https:" ? https.request : http.request;
    const req = request({
      protocol: target.url.protocol,
      hostname: target.hostname,
      port: target.url.port || undefined,
      path: `${target.url.pathname}${target.url.search}`,
      method: "GET",
      headers: { "user-agent": options.userAgent ?? "agentboard-bundle-download", accept: "*/*", "accept-encoding": "identity" },
      lookup: pinned,
      // A fresh connection per hop: a pooled socket could belong to an earlier resolution.
      agent: false,
      signal,
    });
    req.on("error", (err) => fail(fromNodeError(err)));
    req.on("response", (res) => {
      const status = res.statusCode ?? 0;
      if (REDIRECTS.has(status)) {
        const location = res.headers.location;
        if (!location) return fail(new DownloadError("http_status", `HTTP ${status} redirect without a Location header from ${href}`, href, status));
        settled = true;
        res.destroy();
        return resolve({ kind: "redirect", location, status });
      }
      if (status < 200 || status > 299) {
        return fail(new DownloadError("http_status", `HTTP ${status} from ${href}`, href, status));
      }
      const declared = Number(res.headers["content-length"]);
      if (Number.isFinite(declared) && declared > options.maxBytes) {
        return fail(new DownloadError("too_large", `Content-Length ${declared} exceeds the limit of ${options.maxBytes} bytes`, href));
      }
      const hash = createHash("sha256");
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        if (settled) return;
        size += chunk.length;
        if (size > options.maxBytes) {
          return fail(new DownloadError("too_large", `the body exceeds the limit of ${options.maxBytes} bytes`, href));
        }
        hash.update(chunk);
        chunks.push(chunk);
      });
      res.on("end", () => {
        if (settled) return;
        settled = true;
        resolve({ kind: "body", bundle: { bytes: Buffer.concat(chunks, size), sha256: hash.digest("hex"), size } });
      });
      res.on("error", (err) => fail(fromNodeError(err)));
      res.on("close", () => {
        if (!settled) fail(signal.aborted ? fromNodeError(signal.reason) : new DownloadError("network", `connection to ${target.hostname} closed before the body was complete`, href));
      });
    });
    req.end();
  });
}

// ---- address policy -------------------------------------------------------------------------

interface Range {
  base: bigint;
  bits: number;
  reason: string;
  loopback?: boolean;
}

const v4 = (cidr: string, reason: string, loopback = false): Range => {
  const [base, bits] = cidr.split("/") as [string, string];
  return { base: parseIPv4(base)!, bits: Number(bits), reason, loopback };
};
const v6 = (cidr: string, reason: string, loopback = false): Range => {
  const [base, bits] = cidr.split("/") as [string, string];
  return { base: parseIPv6(base)!, bits: Number(bits), reason, loopback };
};

const IPV4_RANGES: readonly Range[] = [
  v4("0.0.0.0/8", "a 'this network' address (0.0.0.0/8)"),
  v4("10.0.0.0/8", "a private address (10.0.0.0/8)"),
  v4("100.64.0.0/10", "a carrier-grade NAT address (100.64.0.0/10)"),
  v4("127.0.0.0/8", "a loopback address (127.0.0.0/8)", true),
  v4("169.254.0.0/16", "a link-local address (169.254.0.0/16)"),
  v4("172.16.0.0/12", "a private address (172.16.0.0/12)"),
  v4("192.0.0.0/24", "an IETF protocol address (192.0.0.0/24)"),
  v4("192.0.2.0/24", "a documentation address (192.0.2.0/24)"),
  v4("192.168.0.0/16", "a private address (192.168.0.0/16)"),
  v4("198.18.0.0/15", "a benchmarking address (198.18.0.0/15)"),
  v4("198.51.100.0/24", "a documentation address (198.51.100.0/24)"),
  v4("203.0.113.0/24", "a documentation address (203.0.113.0/24)"),
  v4("224.0.0.0/4", "a multicast address (224.0.0.0/4)"),
  v4("240.0.0.0/4", "a reserved or broadcast address (240.0.0.0/4)"),
];

const IPV6_RANGES: readonly Range[] = [
  v6("::/128", "the unspecified address (::)"),
  v6("::1/128", "a loopback address (::1)", true),
  v6("::ffff:0:0/96", "an IPv4-mapped IPv6 address (::ffff:0:0/96)"),
  v6("::/96", "an IPv4-compatible IPv6 address (::/96)"),
  v6("64:ff9b:1::/48", "a local NAT64 address (64:ff9b:1::/48)"),
  v6("100::/64", "a discard-only address (100::/64)"),
  v6("2001::/32", "a Teredo tunnel address (2001::/32)"),
  v6("2001:db8::/32", "a documentation address (2001:db8::/32)"),
  v6("fc00::/7", "a unique local address (fc00::/7)"),
  v6("fe80::/10", "a link-local address (fe80::/10)"),
  v6("fec0::/10", "a site-local address (fec0::/10)"),
  v6("ff00::/8", "a multicast address (ff00::/8)"),
];

/**
 * IPv6 prefixes that carry an IPv4 address (NAT64, 6to4): the embedded address is checked
 * too, without the loopback switch (tests never need a tunnelled loopback).
 */
const EMBEDDING: readonly { range: Range; shift: bigint }[] = [
  { range: v6("64:ff9b::/96", "a NAT64 address"), shift: 0n },
  { range: v6("2002::/16", "a 6to4 address"), shift: 80n },
];

const inRange = (value: bigint, width: number, r: Range) => value >> BigInt(width - r.bits) === r.base >> BigInt(width - r.bits);

/**
 * Why an address must not be contacted (loopback, private, link-local, …), or undefined when
 * it is a public unicast address. Anything that does not parse as an IP is refused.
 */
export function forbiddenAddressReason(address: string, options: { allowLoopback?: boolean } = {}): string | undefined {
  const ip = address.replace(/^\[(.*)\]$/, "$1");
  const check = (ranges: readonly Range[], value: bigint, width: number) => {
    const hit = ranges.find((r) => inRange(value, width, r));
    return hit && !(hit.loopback && options.allowLoopback) ? hit.reason : undefined;
  };
  if (isIP(ip) === 4) return check(IPV4_RANGES, parseIPv4(ip)!, 32);
  if (isIP(ip) === 6) {
    const value = parseIPv6(ip);
    if (value === undefined) return "not an IP address";
    const direct = check(IPV6_RANGES, value, 128);
    if (direct) return direct;
    for (const { range, shift } of EMBEDDING) {
      if (!inRange(value, 128, range)) continue;
      const embedded = IPV4_RANGES.find((r) => inRange((value >> shift) & 0xffffffffn, 32, r));
      if (embedded) return `${range.reason} embedding ${embedded.reason}`;
    }
    return undefined;
  }
  return "not an IP address";
}

function isLoopback(address: string): boolean {
  return forbiddenAddressReason(address) !== undefined && forbiddenAddressReason(address, { allowLoopback: true }) === undefined;
}

function parseIPv4(text: string): bigint | undefined {
  const parts = text.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.reduce((acc, p) => (acc << 8n) | BigInt(Number(p)), 0n);
}

function parseIPv6(text: string): bigint | undefined {
  let s = text.split("%")[0]!.toLowerCase();
  // A trailing dotted quad (::ffff:1.2.3.4) becomes two hextets.
  const lastColon = s.lastIndexOf(":");
  const tail = s.slice(lastColon + 1);
  if (tail.includes(".")) {
    const quad = parseIPv4(tail);
    if (quad === undefined) return undefined;
    s = `${s.slice(0, lastColon + 1)}${(quad >> 16n).toString(16)}:${(quad & 0xffffn).toString(16)}`;
  }
  const halves = s.split("::");
  if (halves.length > 2) return undefined;
  const head = halves[0] ? halves[0].split(":") : [];
  const rest = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...rest];
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return undefined;
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

function normaliseHost(host: string): string {
  return host.trim().toLowerCase().replace(/\.$/, "").replace(/^\[(.*)\]$/, "$1");
}
