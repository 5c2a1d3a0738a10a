/**
 * Issue 26, item 3, against the production server: connections that send a nearly complete,
 * wrongly signed webhook body and stall cannot keep a correctly signed delivery out. One
 * address holds at most its share of the reading slots (GITHUB_WEBHOOK_MAX_PER_ADDRESS; the
 * address is the one a trusted proxy appended to X-Forwarded-For), and a body that stops
 * arriving is cut off with 408 once the grace is over (GITHUB_WEBHOOK_MIN_BYTES_PER_SEC), long
 * before the read deadline. The stalled requests are raw sockets, as an attacker would send them.
 */
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { githubDeliveries } from "@/db/schema";
import { signWebhookBody } from "@/lib/github/webhook-signature";
import { ENGINES } from "../helpers/engines";
import { startApp, type App } from "./harness";

const SECRET = "webhook-secret-for-slow-sender-tests";
const REPO = "bench-org/bench";
const ATTACKER = "203.0.113.7";
const GITHUB = "192.0.2.10";
const BYSTANDER = "198.51.100.3";

interface RawResponse {
  status: number;
  text: string;
}

/**
 * Sends a webhook request's head and all but the last byte of a wrongly signed body, then
 * stalls; resolves with the server's answer (status line and the rest, as text), if one comes.
 */
function stalledDelivery(url: string, from: string, id: string): { socket: Socket; answer: Promise<RawResponse> } {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  const body = JSON.stringify({ action: "opened", repository: { full_name: REPO }, pad: "x".repeat(4_000) });
  const head = [
    "POST /api/github/webhook HTTP/1.1",
    `Host: ${hostname}:${port}`,
    "Content-Type: application/json",
    "X-GitHub-Event: issues",
    `X-GitHub-Delivery: ${id}`,
    `X-Hub-Signature-256: ${signWebhookBody("not-the-secret", body)}`,
    `X-Forwarded-For: ${from}`,
    `Content-Length: ${body.length}`,
    "",
    "",
  ].join("\r\n");
  socket.write(head + body.slice(0, -1));
  const answer = new Promise<RawResponse>((resolve) => {
    let raw = "";
    const done = () => {
      const m = /^HTTP\/1\.1 (\d{3})/.exec(raw);
      resolve({ status: m ? Number(m[1]) : 0, text: raw });
    };
    socket.on("data", (d: Buffer) => {
      raw += d.toString("utf8");
      // One answer is enough: its head, and its body whole (a length, or the last chunk).
      const end = raw.indexOf("\r\n\r\n");
      if (end < 0) return;
      const headers = raw.slice(0, end);
      const rest = raw.slice(end + 4);
      const length = /content-length: (\d+)/i.exec(headers);
      if ((length && Buffer.byteLength(rest) >= Number(length[1])) || rest.endsWith("0\r\n\r\n")) done();
    });
    socket.on("close", done);
    socket.on("error", done);
  });
  return { socket, answer };
}

async function signedDelivery(url: string, from: string, id: string): Promise<Response> {
  const body = JSON.stringify({
    action: "opened",
    repository: { full_name: REPO },
    issue: { number: 1, title: "t", body: "b", state: "open", html_url: `https://github.com/${REPO}/issues/1`, labels: [{ name: "leaderboard-submission" }], user: { login: "sub" } },
  });
  return fetch(`${url}/api/github/webhook`, {
    method: "POST",
    body,
    headers: { "content-type": "application/json", "x-github-event": "issues", "x-github-delivery": id, "x-hub-signature-256": signWebhookBody(SECRET, body), "x-forwarded-for": from },
  });
}

const env = (over: Record<string, string>) => ({ GITHUB_WEBHOOK_SECRET: SECRET, GITHUB_REPOSITORY: REPO, AGENTBOARD_TRUST_PROXY: "1", GITHUB_WEBHOOK_READ_TIMEOUT_MS: "60000", ...over });

describe.each(ENGINES)("webhook slow senders on %s", (engine) => {
  describe("one address's share of the reading slots", () => {
    let app: App;
    beforeAll(async () => {
      // The grace is long here, so only the share can keep the slots free.
      app = await startApp(async () => {}, env({ GITHUB_WEBHOOK_RATE_GRACE_MS: "60000" }), engine);
    }, 120_000);
    afterAll(() => app?.stop());

    it("eight stalled bodies from one address leave room for a signed delivery from another", async () => {
      const stalled = Array.from({ length: 8 }, (_, i) => stalledDelivery(app.url, ATTACKER, `stall-${i}`));
      try {
        // Every stalled request has reached the route: it was refused its slot (429), or, with
        // no share, the slots are full (a bystander's unsigned request is turned away busy).
        let refused = 0;
        for (const s of stalled) void s.answer.then((a) => (refused += a.status === 429 ? 1 : 0));
        for (let i = 0; i < 100 && refused < 6; i++) {
          const probe = await fetch(`${app.url}/api/github/webhook`, { method: "POST", body: "{}", headers: { "x-github-event": "issues", "x-github-delivery": `probe-${i}`, "x-forwarded-for": BYSTANDER } });
          if (probe.status === 503) break;
          await new Promise((r) => setTimeout(r, 100));
        }

        const delivered = await signedDelivery(app.url, GITHUB, "from-github-1");
        expect(delivered.status, await delivered.clone().text()).toBe(202);
        expect((await app.db.select().from(githubDeliveries)).map((d) => d.deliveryId)).toEqual(["from-github-1"]);
        // The attacker's address held its share (2 of 8), no more: the six others were told so.
        expect(refused).toBe(6);
      } finally {
        for (const s of stalled) s.socket.destroy();
      }
    });
  });

  describe("a minimum transfer rate", () => {
    let app: App;
    beforeAll(async () => {
      // Every stalled body gets a slot here (the share is all eight): only the rate frees them.
      app = await startApp(async () => {}, env({ GITHUB_WEBHOOK_MAX_PER_ADDRESS: "8" }), engine);
    }, 120_000);
    afterAll(() => app?.stop());

    it("cuts off bodies that stopped arriving with 408 long before the deadline, and then takes a signed delivery", async () => {
      const stalled = Array.from({ length: 8 }, (_, i) => stalledDelivery(app.url, ATTACKER, `slow-${i}`));
      try {
        const answers = await Promise.all(stalled.map((s) => s.answer));
        for (const a of answers) {
          expect(a.status).toBe(408);
          expect(a.text).toMatch(/slower than 1024 bytes\/s/);
        }
        const delivered = await signedDelivery(app.url, GITHUB, "from-github-2");
        expect(delivered.status).toBe(202);
        expect((await app.db.select().from(githubDeliveries)).map((d) => d.deliveryId)).toEqual(["from-github-2"]);
      } finally {
        for (const s of stalled) s.socket.destroy();
      }
    }, 90_000);
  });
});
