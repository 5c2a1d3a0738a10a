/** POST /admin/logout: ends the session, on the server as well as in this browser. */
import { adminToken, readCookie, revokeSession, sameOrigin, seeOther, SESSION_COOKIE, sessionCookie } from "../auth";

export const dynamic = "force-dynamic";

export async function POST(request: Request): Promise<Response> {
  if (!sameOrigin(request)) return new Response("cross-site sign-out refused", { status: 403 });
  await revokeSession(readCookie(request.headers.get("cookie"), SESSION_COOKIE), adminToken());
  const secure = new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";
  return seeOther("/admin?signedOut=1", { "Set-Cookie": sessionCookie("", secure, 0) });
}
