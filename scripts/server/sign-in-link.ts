/**
 * The sign-in link the main job prints (scripts/main.ts): `GET /admin/login?token=…` signs the
 * browser in as the form does (POST /admin/login: the same token check, the same per-client
 * limit on failures, the same session) and goes on to /admin. A link puts the token in the
 * address bar and the browser's history, so only a server bound to a loopback address answers
 * it (serve.ts): the link is then opened on the machine that printed it. Anywhere else the
 * request goes to the app, which has no GET sign-in.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { adminToken, clearFailures, createSession, lockedOut, recordFailure, sessionCookie, tokenMatches } from "../../app/admin/auth";

export const SIGN_IN_PATH = "/admin/login";

/** Whether a host name or address reaches only this machine. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

export function signInLink(origin: string, token: string): string {
  return `${origin}${SIGN_IN_PATH}?token=${encodeURIComponent(token)}`;
}

/**
 * Answers a sign-in link; false when `req` is not one (another path or method, or no token).
 * `client` is the key the failure limit counts (serve.ts's, the one the app's own sign-in sees).
 */
export async function answerSignInLink(req: IncomingMessage, res: ServerResponse, client: string): Promise<boolean> {
  if (req.method !== "GET") return false;
  const url = new URL(req.url ?? "/", "http://localhost");
  if (url.pathname !== SIGN_IN_PATH || !url.searchParams.has("token")) return false;
  const go = (location: string, cookie?: string) => {
    res.writeHead(303, { location, "cache-control": "no-store", "referrer-policy": "no-referrer", ...(cookie ? { "set-cookie": cookie } : {}) });
    res.end();
    return true;
  };
  // Another site's page may load the link (an image, a redirect) with guesses, which would count
  // as this browser's failures and lock the maintainer out: only a link opened by the user
  // (Sec-Fetch-Site "none"), from our own pages, or from a client that is no browser is answered.
  const site = req.headers["sec-fetch-site"];
  if (site !== undefined && site !== "none" && site !== "same-origin") {
    res.writeHead(403, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" });
    res.end("A sign-in link works only when opened directly (typed, pasted or clicked outside a web page).\n");
    return true;
  }
  const token = adminToken();
  if (!token) return go("/admin?error=disabled");
  if (await lockedOut(client)) return go("/admin?error=locked");
  if (!tokenMatches(url.searchParams.get("token") ?? "", token)) {
    await recordFailure(client);
    return go((await lockedOut(client)) ? "/admin?error=locked" : "/admin?error=token");
  }
  await clearFailures(client);
  // Plain HTTP on a loopback address: the cookie cannot be Secure.
  return go("/admin", sessionCookie(await createSession(token), false));
}
