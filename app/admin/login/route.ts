/** POST /admin/login: the maintainer token in, a session cookie out (or back with an error). */
import { adminToken, clearFailures, clientKey, createSession, lockedOut, recordFailure, sameOrigin, seeOther, sessionCookie, tokenMatches } from "../auth";

export const dynamic = "force-dynamic";

export async function POST(request: Request): Promise<Response> {
  if (!sameOrigin(request)) return new Response("cross-site sign-in refused", { status: 403 });
  const token = adminToken();
  if (!token) return seeOther("/admin?error=disabled");
  const key = clientKey(request);
  if (await lockedOut(key)) return seeOther("/admin?error=locked");
  const given = String((await request.formData().catch(() => null))?.get("token") ?? "");
  if (!tokenMatches(given, token)) {
    await recordFailure(key);
    return seeOther((await lockedOut(key)) ? "/admin?error=locked" : "/admin?error=token");
  }
  await clearFailures(key);
  const secure = new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";
  return seeOther("/admin", { "Set-Cookie": sessionCookie(await createSession(token), secure) });
}
