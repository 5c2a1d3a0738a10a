/** Whether the page being rendered was asked for by a signed-in maintainer (server components). */
import { cookies } from "next/headers";
import { adminToken, SESSION_COOKIE, sessionValid } from "./auth";

export async function maintainerSignedIn(): Promise<boolean> {
  return await sessionValid((await cookies()).get(SESSION_COOKIE)?.value, adminToken());
}
