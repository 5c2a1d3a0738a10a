/**
 * GitHub's webhook: stores a signed delivery and answers at once. Nothing heavy runs here:
 * the worker (`worker` command, scripts/commands/queue.ts) downloads, validates, scores and
 * talks to GitHub, so a page request never waits on a bundle.
 *
 * What can be refused from the headers is refused before the body is read (no secret, no
 * repository configured, an event we do not handle, a missing or malformed signature); the
 * body is then streamed under a cap and a deadline, HMAC-checked as it arrives, and only a few
 * are read at once (limits: lib/submissions/github-settings.ts WEBHOOK_LIMITS).
 */
import { pageDb } from "@/lib/queries/db";
import { readSignedBody } from "@/lib/github/webhook-body";
import { recordDelivery } from "@/lib/submissions/github-intake";
import { githubSettingsFromEnv } from "@/lib/submissions/github-settings";

export const dynamic = "force-dynamic";

/** Events the intake acts on; others are acknowledged unread (GitHub's `ping` among them). */
const HANDLED_EVENTS = new Set(["issues", "issue_comment"]);

const answer = (status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  Response.json(body, { status, headers: { "Cache-Control": "no-store", ...headers } });

/** Bodies being read right now, in this process. */
let reading = 0;

export async function POST(request: Request): Promise<Response> {
  const settings = githubSettingsFromEnv();
  if (!settings.webhookSecret) return answer(503, { error: "the webhook is not configured (GITHUB_WEBHOOK_SECRET)" });
  const event = request.headers.get("x-github-event");
  const delivery = request.headers.get("x-github-delivery");
  if (!event || !delivery) return answer(400, { error: "missing X-GitHub-Event or X-GitHub-Delivery header" });
  if (!HANDLED_EVENTS.has(event)) return answer(202, { status: "ignored", reason: "event not handled" });
  // Without a configured repository nothing is acted on, so nothing is stored either.
  if (!settings.repo) return answer(202, { status: "ignored", reason: "GITHUB_REPOSITORY is not set" });
  if (reading >= settings.webhookMaxConcurrent) return answer(503, { error: "busy: too many deliveries being read" }, { "Retry-After": "5" });

  reading++;
  let read;
  try {
    read = await readSignedBody(request.body, {
      secret: settings.webhookSecret,
      signature: request.headers.get("x-hub-signature-256"),
      contentLength: request.headers.get("content-length"),
      maxBytes: settings.webhookMaxBytes,
      timeoutMs: settings.webhookReadTimeoutMs,
    });
  } finally {
    reading--;
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
