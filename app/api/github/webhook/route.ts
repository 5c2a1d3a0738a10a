/**
 * GitHub's webhook: stores a signed delivery and answers at once. Nothing heavy runs here:
 * the worker (`worker` command, scripts/commands/queue.ts) downloads, validates, scores and
 * talks to GitHub, so a page request never waits on a bundle.
 *
 * What can be refused from the headers is refused before the body is read (no secret, no
 * repository configured, an event we do not handle, a missing or malformed signature); the
 * body is then streamed under a cap, a deadline and a minimum rate, HMAC-checked as it arrives,
 * and only a few are read at once, a few per client address (limits:
 * lib/submissions/github-settings.ts WEBHOOK_LIMITS). A delivery refused here is not lost for
 * good: the worker reconciles the repository's submission issues on a schedule
 * (lib/submissions/github-reconcile.ts).
 */
import { clientKey } from "@/app/admin/auth";
import { pageDb } from "@/lib/queries/db";
import { readSignedBody } from "@/lib/github/webhook-body";
import { recordDelivery } from "@/lib/submissions/github-intake";
import { githubSettingsFromEnv, SettingsError, WEBHOOK_LIMITS, type GitHubSettings } from "@/lib/submissions/github-settings";
import { createReadingSlots } from "./reading-slots";

export const dynamic = "force-dynamic";

/** Events the intake acts on; others are acknowledged unread (GitHub's `ping` among them). */
const HANDLED_EVENTS = new Set(["issues", "issue_comment"]);

const answer = (status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  Response.json(body, { status, headers: { "Cache-Control": "no-store", ...headers } });

/** Bodies being read right now, in this process. */
const slots = createReadingSlots();

/** The client's address, or null when it cannot be known: clientKey says "direct" unless a trusted proxy names it. */
function clientAddress(request: Request): string | null {
  const key = clientKey(request);
  return key === "direct" ? null : key;
}

export async function POST(request: Request): Promise<Response> {
  let settings: GitHubSettings;
  try {
    settings = githubSettingsFromEnv();
  } catch (err) {
    if (!(err instanceof SettingsError)) throw err;
    // The operator's mistake, said in the server's log; the sender learns only that it is not served.
    console.error(`agentboard: the GitHub webhook is misconfigured: ${err.message}`);
    return answer(500, { error: "the webhook is misconfigured; see the server's log" });
  }
  if (!settings.webhookSecret) return answer(503, { error: "the webhook is not configured (GITHUB_WEBHOOK_SECRET)" });
  const event = request.headers.get("x-github-event");
  const delivery = request.headers.get("x-github-delivery");
  if (!event || !delivery) return answer(400, { error: "missing X-GitHub-Event or X-GitHub-Delivery header" });
  if (!HANDLED_EVENTS.has(event)) return answer(202, { status: "ignored", reason: "event not handled" });
  // Without a configured repository nothing is acted on, so nothing is stored either.
  if (!settings.repo) return answer(202, { status: "ignored", reason: "GITHUB_REPOSITORY is not set" });
  const slot = slots.take(clientAddress(request), { total: settings.webhookMaxConcurrent, perAddress: settings.webhookMaxPerAddress });
  // Refused unread; the body is left to the server to discard (waiting on its cancel here could hold the answer).
  if (!slot.ok) return answer(slot.status, { error: slot.reason }, { "Retry-After": "5" });

  let read;
  try {
    read = await readSignedBody(request.body, {
      secret: settings.webhookSecret,
      signature: request.headers.get("x-hub-signature-256"),
      contentLength: request.headers.get("content-length"),
      maxBytes: settings.webhookMaxBytes,
      timeoutMs: settings.webhookReadTimeoutMs,
      minRate: { bytesPerSecond: settings.webhookMinBytesPerSecond, graceMs: settings.webhookRateGraceMs, windowMs: WEBHOOK_LIMITS.rateWindowMs },
    });
  } finally {
    slot.release();
  }
  if (!read.ok) return answer(read.status, { error: read.reason });

  let payload: unknown;
  try {
    payload = JSON.parse(read.bytes.toString("utf8"));
  } catch {
    return answer(400, { error: "the body is not JSON" });
  }
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) return answer(400, { error: "the body is not a JSON object" });
  const fullName = (payload as { repository?: { full_name?: unknown } }).repository?.full_name;
  if (typeof fullName !== "string" || fullName.toLowerCase() !== `${settings.repo.owner}/${settings.repo.repo}`.toLowerCase()) {
    return answer(202, { status: "ignored", reason: "not the configured repository" });
  }

  const id = delivery.slice(0, 200);
  if ((await recordDelivery(await pageDb(), { id, event, payload: payload as Record<string, unknown> }, new Date())) === "duplicate") {
    return answer(200, { status: "duplicate", delivery: id });
  }
  return answer(202, { status: "queued", delivery: id });
}
