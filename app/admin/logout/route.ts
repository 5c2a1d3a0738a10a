/** POST /admin/logout: ends the session. */
import { sameOrigin, seeOther, sessionCookie } from "../auth";

export const dynamic = "force-dynamic";

export function POST(request: Request): Response {
  if (!sameOrigin(request)) return new Response("cross-site sign-out refused", { status: 403 });
  return seeOther("/admin?signedOut=1", { "Set-Cookie": sessionCookie("", false, 0) });
}
