/**
 * Maintainer sign-in for /admin: the token from AGENTBOARD_ADMIN_TOKEN (compared in constant
 * time), a signed httpOnly SameSite=Strict session cookie, a limit on failed attempts, and
 * same-origin checks on every form post.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const SESSION_COOKIE = "agentboard_admin";
const SESSION_MS = 8 * 60 * 60 * 1000;
const MAX_FAILURES = 5;
const FAILURE_WINDOW_MS = 15 * 60 * 1000;

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

export function createSession(token: string, now = Date.now()): string {
  const payload = `${now + SESSION_MS}.${randomBytes(12).toString("base64url")}`;
  const mac = createHmac("sha256", sessionKey(token)).update(payload).digest("base64url");
  return `${payload}.${mac}`;
}

export function sessionValid(cookie: string | undefined, token: string | null, now = Date.now()): boolean {
  if (!cookie || !token) return false;
  const parts = cookie.split(".");
  if (parts.length !== 3) return false;
  const [expires, nonce, mac] = parts as [string, string, string];
  const expected = createHmac("sha256", sessionKey(token)).update(`${expires}.${nonce}`).digest();
  const given = Buffer.from(mac, "base64url");
  return given.length === expected.length && timingSafeEqual(given, expected) && Number(expires) > now;
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

/** Failed sign-ins per client, in this process: five per quarter hour. */
const failures = new Map<string, number[]>();

/**
 * Forwarded addresses are only believed behind a proxy that sets them
 * (AGENTBOARD_TRUST_PROXY=1); otherwise a guesser could rotate the header, so every client
 * shares one allowance.
 */
export function clientKey(request: Request): string {
  if (process.env.AGENTBOARD_TRUST_PROXY !== "1") return "direct";
  return request.headers.get("x-forwarded-for")?.split(",")[0]?.trim() || "direct";
}

export function lockedOut(key: string, now = Date.now()): boolean {
  const recent = (failures.get(key) ?? []).filter((t) => now - t < FAILURE_WINDOW_MS);
  failures.set(key, recent);
  return recent.length >= MAX_FAILURES;
}

export function recordFailure(key: string, now = Date.now()): void {
  failures.set(key, [...(failures.get(key) ?? []), now]);
}

export function clearFailures(key: string): void {
  failures.delete(key);
}

/** A 303 to a page of this site (relative Location: correct behind any proxy). */
export function seeOther(location: string, headers: Record<string, string> = {}): Response {
  return new Response(null, { status: 303, headers: { Location: location, "Cache-Control": "no-store", ...headers } });
}
