/**
 * Admin sign-in behind a trusted proxy (AGENTBOARD_TRUST_PROXY=1), through the real route
 * handler (POST /admin/login) on the page database the environment names, on each engine:
 * wrong guesses are slowed per address, never by a lockout of the token itself. 120 wrong
 * guesses from 120 addresses leave the right token working from a fresh address; one address
 * that keeps guessing is refused, even with the right token, while others still sign in.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { adminSessions, signInFailures } from "@/db/schema";
import { ENGINES, freshDatabase, type TestDatabase } from "../helpers/engines";

const TOKEN = "the-right-maintainer-token";
const ORIGIN = "http://127.0.0.1:3000";

describe.each(ENGINES)("admin sign-in behind a trusted proxy (%s)", (engine) => {
  let t: TestDatabase;
  let POST: (request: Request) => Promise<Response>;
  const saved = { ...process.env };
  beforeAll(async () => {
    t = await freshDatabase(engine);
    // What the web process reads: the route opens the page database the environment names.
    Object.assign(process.env, t.env, { AGENTBOARD_ADMIN_TOKEN: TOKEN, AGENTBOARD_TRUST_PROXY: "1", AGENTBOARD_TRUSTED_PROXY_HOPS: "1" });
    ({ POST } = await import("@/app/admin/login/route"));
  });
  afterAll(async () => {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
    await t?.close();
  });
  beforeEach(async () => {
    await t.db.delete(signInFailures);
    await t.db.delete(adminSessions);
  });

  /** A sign-in through the proxy, which appended `address` to X-Forwarded-For (after whatever the client sent). */
  const signIn = async (token: string, address: string) => {
    const res = await POST(
      new Request(`${ORIGIN}/admin/login`, {
        method: "POST",
        body: new URLSearchParams({ token }),
        headers: { host: "127.0.0.1:3000", origin: ORIGIN, "x-forwarded-for": `10.9.9.9, ${address}` },
      }),
    );
    expect(res.status).toBe(303);
    return { location: res.headers.get("location"), cookie: res.headers.get("set-cookie") };
  };
  const address = (i: number) => `203.0.${Math.floor(i / 250)}.${(i % 250) + 1}`;

  it("120 wrong guesses from 120 addresses do not lock the right token out: it signs in from a fresh address", async () => {
    const answers: (string | null)[] = [];
    for (let i = 0; i < 120; i++) answers.push((await signIn(`guess-${i}`, address(i))).location);
    const ok = await signIn(TOKEN, "198.51.100.7");
    expect(ok.location).toBe("/admin");
    expect(ok.cookie).toMatch(/^agentboard_admin=[^;]+; Path=\/; HttpOnly; SameSite=Strict/);
    // Each guess was simply wrong: no address was refused for what other addresses did.
    expect(answers).toEqual(Array(120).fill("/admin?error=token"));
    // An address that guessed once still signs in with the right token too.
    expect((await signIn(TOKEN, address(3))).location).toBe("/admin");
  });

  it("one address that keeps guessing is refused after 5 failures, even with the right token; another address is not", async () => {
    const guesser = "192.0.2.66";
    const answers: (string | null)[] = [];
    for (let i = 0; i < 8; i++) answers.push((await signIn(`guess-${i}`, guesser)).location);
    expect(answers).toEqual([...Array(4).fill("/admin?error=token"), ...Array(4).fill("/admin?error=locked")]);
    expect((await signIn(TOKEN, guesser)).location).toBe("/admin?error=locked");
    // Refused attempts are not counted again: the table holds the five failures only.
    expect(await t.db.select({ key: signInFailures.clientKey }).from(signInFailures)).toHaveLength(5);
    // The client's own first X-Forwarded-For entry changes nothing: the proxy's entry is the key.
    expect((await signIn(TOKEN, `1.1.1.1, ${guesser}`)).location).toBe("/admin?error=locked");
    expect((await signIn(TOKEN, "198.51.100.8")).location).toBe("/admin");
  });
});
