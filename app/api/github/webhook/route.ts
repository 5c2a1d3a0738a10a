/**
 * GitHub's webhook: checks the signature over the raw body, drops a delivery id seen before,
 * stores the delivery and answers at once; the work runs after the response (and a polling
 * pass picks up anything left pending, so nothing is lost if this process stops).
 */
import { after } from "next/server";
import { pageDb } from "@/lib/queries/db";
import { verifyWebhookSignature } from "@/lib/github/webhook-signature";
import { createGitHubIntake, NoDefaultBenchmarkError, processPendingDeliveries, recordDelivery } from "@/lib/submissions/github-intake";
import { githubConfigured, githubSettingsFromEnv } from "@/lib/submissions/github-settings";

export const dynamic = "force-dynamic";

/** GitHub caps payloads at 25 MB; issue events are far smaller. */
const MAX_BODY_BYTES = 5 * 1024 * 1024;

const answer = (status: number, body: Record<string, unknown>) => Response.json(body, { status, headers: { "Cache-Control": "no-store" } });

async function readCapped(request: Request): Promise<Uint8Array | null> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) return null;
  const reader = request.body?.getReader();
  if (!reader) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

export async function POST(request: Request): Promise<Response> {
  const settings = githubSettingsFromEnv();
  if (!settings.webhookSecret) return answer(503, { error: "the webhook is not configured (GITHUB_WEBHOOK_SECRET)" });
  const raw = await readCapped(request);
  if (raw === null) return answer(413, { error: `payload larger than ${MAX_BODY_BYTES} bytes` });
  const check = verifyWebhookSignature(settings.webhookSecret, raw, request.headers.get("x-hub-signature-256"));
  if (!check.valid) return answer(401, { error: check.reason });
  const event = request.headers.get("x-github-event");
  const delivery = request.headers.get("x-github-delivery");
  if (!event || !delivery) return answer(400, { error: "missing X-GitHub-Event or X-GitHub-Delivery header" });
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(raw).toString("utf8"));
  } catch {
    return answer(400, { error: "the body is not JSON" });
  }
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) return answer(400, { error: "the body is not a JSON object" });

  const db = pageDb();
  if (recordDelivery(db, { id: delivery.slice(0, 200), event, payload: payload as Record<string, unknown> }, new Date()) === "duplicate") {
    return answer(200, { status: "duplicate", delivery });
  }
  if (githubConfigured(settings)) {
    after(async () => {
      // Without a benchmark the delivery stays pending for a later pass.
      const intake = await createGitHubIntake(db, settings, { log: (l) => console.error(`webhook: ${l}`) }).catch((err: unknown) => {
        if (err instanceof NoDefaultBenchmarkError) return null;
        throw err;
      });
      if (intake) await processPendingDeliveries(intake);
    });
  }
  return answer(202, { status: "queued", delivery });
}
