/**
 * The client address behind a reverse proxy. Each proxy appends the address it received the
 * request from to X-Forwarded-For, so only the entries our own proxies appended can be
 * believed: counting `trustedHops` from the right. Everything to the left came from the client
 * and may be forged. IPv6 addresses are grouped by /64, the block one client usually holds.
 */
import { isIP } from "node:net";

/**
 * The header our own server (scripts/server/serve.ts) puts on every request it hands to the app:
 * `<server token>:<client key>`, the key read from the connection (or from X-Forwarded-For behind
 * a trusted proxy). Next gives route handlers no socket address, so without it every direct client
 * would share one sign-in allowance, and five wrong guesses from anyone would lock the maintainer
 * out. Any copy a client sends is replaced, and the token (AGENTBOARD_SERVER_TOKEN, made by the
 * server at start, one per port) tells the real one from a forged one when the app runs alone.
 */
export const CLIENT_HEADER = "x-agentboard-client";
export const SERVER_TOKEN_ENV = "AGENTBOARD_SERVER_TOKEN";

/** The client key our server vouched for, or null (no header, or not from our server). */
export function vouchedClient(header: string | null | undefined, token: string | undefined): string | null {
  if (!header || !token || !header.startsWith(`${token}:`)) return null;
  const key = header.slice(token.length + 1);
  return key.length > 0 && key.length <= 64 ? key : null;
}

/** How many proxies in front of the app append to X-Forwarded-For (AGENTBOARD_TRUSTED_PROXY_HOPS, default 1). */
export const DEFAULT_TRUSTED_HOPS = 1;

export function trustedHopsFromEnv(raw: string | undefined): number {
  const n = Number(raw);
  return Number.isInteger(n) && n >= 1 && n <= 10 ? n : DEFAULT_TRUSTED_HOPS;
}

/** An address as a rate-limit key: port and brackets dropped, IPv6 cut to its /64; null when it is no address. */
export function addressKey(raw: string): string | null {
  let s = raw.trim().toLowerCase();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(s);
  if (bracketed) s = bracketed[1]!;
  else if (/^[\d.]+:\d+$/.test(s)) s = s.slice(0, s.lastIndexOf(":"));
  s = s.replace(/%.*$/, ""); // an IPv6 zone id
  const kind = isIP(s);
  if (kind === 4) return s;
  if (kind !== 6) return null;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (mapped) return mapped[1]!;
  return `${expandIPv6(s).slice(0, 4).join(":")}::/64`;
}

function expandIPv6(s: string): string[] {
  const [head, tail] = s.includes("::") ? (s.split("::") as [string, string]) : [s, undefined];
  const left = head ? head.split(":") : [];
  const right = tail === undefined ? [] : tail ? tail.split(":") : [];
  // An embedded IPv4 tail counts as two groups.
  const last = (right.length ? right : left).at(-1) ?? "";
  const v4 = last.includes(".") ? 1 : 0;
  const fill = tail === undefined ? [] : new Array(8 - left.length - right.length - v4).fill("0");
  return [...left, ...fill, ...right].map((g) => (g.includes(".") ? g : g.replace(/^0+(?=.)/, "")));
}

/**
 * The client's key from an X-Forwarded-For value: the entry `trustedHops` from the right (the
 * address our nearest trusted proxy saw), or null when the header has too few entries or that
 * entry is no address.
 */
export function clientFromForwardedFor(header: string | null | undefined, trustedHops = DEFAULT_TRUSTED_HOPS): string | null {
  if (!header) return null;
  const entries = header
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean);
  const entry = entries[entries.length - trustedHops];
  return entry === undefined ? null : addressKey(entry);
}
