/**
 * Maintainer sign-in for /admin: the token from AGENTBOARD_ADMIN_TOKEN (compared in constant
 * time), a signed httpOnly SameSite=Strict session cookie that is also registered in the
 * database (so sign-out revokes it, on every web replica), failed attempts counted per client
 * in the database too (a client that fails too often is refused for a while; other clients,
 * and so the right token, never are: failure-limiter.ts), and same-origin checks on every form
 * post.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { pageDb } from "@/lib/queries/db";
import { createFailureLimiter, type FailureLimiter } from "./failure-limiter";
import { CLIENT_HEADER, clientFromForwardedFor, SERVER_TOKEN_ENV, trustedHopsFromEnv, vouchedClient } from "./forwarded-for";
import { createSessionStore, type SessionStore } from "./session-store";

export const SESSION_COOKIE = "agentboard_admin";
const SESSION_MS = 8 * 60 * 60 * 1000;

/** Sessions and failures live in the page database: every route and every replica sees the same ones. */
const state: { sessions: SessionStore; failures: FailureLimiter } = { sessions: createSessionStore(pageDb), failures: createFailureLimiter(pageDb) };

export function adminToken(): string | null {
  const t = process.env.AGENTBOARD_ADMIN_TOKEN?.trim();
  return t ? t : null;
}

/** The signing key follows the token, so changing the token ends every session. */
function sessionKey(token: string): Buffer {
  return createHash("sha256").update(`agentboard-session\0${process.env.AGENTBOARD_SESSION_SECRET ?? ""}\0${token}`).digest();
}

const digest = (s: string) => createHash("sha256").update(s).digest();

/** Constant-time whatever the lengths: both sides are hashed to 32 bytes first. */
export function tokenMatches(given: string, token: string): boolean {
  return timingSafeEqual(digest(given), digest(token));
}

export async function createSession(token: string, now = Date.now(), sessions: SessionStore = state.sessions): Promise<string> {
  const expires = now + SESSION_MS;
  const nonce = randomBytes(18).toString("base64url");
  const payload = `${expires}.${nonce}`;
  const mac = createHmac("sha256", sessionKey(token)).update(payload).digest("base64url");
  await sessions.add(nonce, expires, now);
  return `${payload}.${mac}`;
}

/** The nonce of a well-signed, unexpired session cookie (whether or not it was revoked), else null. */
function signedNonce(cookie: string | undefined, token: string | null, now: number): string | null {
  if (!cookie || !token || cookie.length > 200) return null;
  const parts = cookie.split(".");
  if (parts.length !== 3) return null;
  const [expires, nonce, mac] = parts as [string, string, string];
  const expected = createHmac("sha256", sessionKey(token)).update(`${expires}.${nonce}`).digest();
  const given = Buffer.from(mac, "base64url");
  return given.length === expected.length && timingSafeEqual(given, expected) && Number(expires) > now ? nonce : null;
}

/** A signed, unexpired cookie of a session the board issued and has not ended (no database read without one). */
export async function sessionValid(cookie: string | undefined, token: string | null, now = Date.now(), sessions: SessionStore = state.sessions): Promise<boolean> {
  const nonce = signedNonce(cookie, token, now);
  return nonce !== null && (await sessions.has(nonce, now));
}

/** Ends the session of this cookie on the server: the cookie no longer signs anyone in, wherever it was copied. */
export async function revokeSession(cookie: string | undefined, token: string | null, now = Date.now(), sessions: SessionStore = state.sessions): Promise<void> {
  const nonce = signedNonce(cookie, token, now);
  if (nonce) await sessions.revoke(nonce);
}

export function sessionCookie(value: string, secure: boolean, maxAgeS = SESSION_MS / 1000): string {
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeS}${secure ? "; Secure" : ""}`;
}

export function readCookie(header: string | null, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return v.join("=");
  }
  return undefined;
}

/** Form posts must come from our own pages: the Origin (or Referer) host is the request's host. */
export function sameOrigin(request: Request): boolean {
  const host = request.headers.get("host");
  const from = request.headers.get("origin") ?? request.headers.get("referer");
  if (!host || !from) return false;
  try {
    return new URL(from).host === host;
  } catch {
    return false;
  }
}

/**
 * Forwarded addresses are only believed behind a proxy that sets them
 * (AGENTBOARD_TRUST_PROXY=1), and then only the entry that proxy appended (the right-most,
 * or AGENTBOARD_TRUSTED_PROXY_HOPS from the right): the entries to its left are the client's
 * own words. Behind our own server (serve.ts) the connection's address counts otherwise; only an
 * app run without it (`next start`) and without a trusted proxy shares one allowance among all.
 */
export function clientKey(request: Request): string {
  // Our server read the connection (and the trusted proxy's entry) already: scripts/server/serve.ts.
  const vouched = vouchedClient(request.headers.get(CLIENT_HEADER), process.env[SERVER_TOKEN_ENV]);
  if (vouched) return vouched;
  if (process.env.AGENTBOARD_TRUST_PROXY !== "1") return "direct";
  return clientFromForwardedFor(request.headers.get("x-forwarded-for"), trustedHopsFromEnv(process.env.AGENTBOARD_TRUSTED_PROXY_HOPS)) ?? "direct";
}

/** Whether this client key failed too often lately, across every replica (limits: failure-limiter.ts). */
export function lockedOut(key: string, now = Date.now()): Promise<boolean> {
  return state.failures.lockedOut(key, now);
}

export function recordFailure(key: string, now = Date.now()): Promise<void> {
  return state.failures.recordFailure(key, now);
}

export function clearFailures(key: string): Promise<void> {
  return state.failures.clear(key);
}

/** A 303 to a page of this site (relative Location: correct behind any proxy). */
export function seeOther(location: string, headers: Record<string, string> = {}): Response {
  return new Response(null, { status: 303, headers: { Location: location, "Cache-Control": "no-store", ...headers } });
}

/** Whether this request carries a live maintainer session (for route handlers). */
export function requestIsMaintainer(request: Request): Promise<boolean> {
  return sessionValid(readCookie(request.headers.get("cookie"), SESSION_COOKIE), adminToken());
}
