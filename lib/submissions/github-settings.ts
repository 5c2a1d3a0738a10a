/**
 * How Agentboard talks to GitHub, from the environment: the one place that reads it.
 * GITHUB_TOKEN (or GITHUB_APP_ID + GITHUB_APP_PRIVATE_KEY + GITHUB_APP_INSTALLATION_ID),
 * GITHUB_API_URL, GITHUB_REPOSITORY, GITHUB_SUBMISSION_LABELS, GITHUB_WEBHOOK_SECRET, BUNDLE_ALLOWED_HOSTS,
 * BUNDLE_MAX_BYTES, BUNDLE_TIMEOUT_MS, AGENTBOARD_PUBLIC_URL, AGENTBOARD_BUNDLE_DIR, the webhook's
 * limits (GITHUB_WEBHOOK_MAX_BYTES, GITHUB_WEBHOOK_READ_TIMEOUT_MS, GITHUB_WEBHOOK_MAX_CONCURRENT,
 * GITHUB_WEBHOOK_MAX_PER_ADDRESS, GITHUB_WEBHOOK_MIN_BYTES_PER_SEC, GITHUB_WEBHOOK_RATE_GRACE_MS),
 * the worker's GitHub pass (GITHUB_DELIVERY_POLL_MS, GITHUB_STATUS_SYNC_MS, GITHUB_RECONCILE_MS,
 * GITHUB_RECONCILE_MAX_PAGES), and the test-only AGENTBOARD_TEST_ALLOW_LOOPBACK.
 */
import path from "node:path";
import { hasGitHubCredentials, type GitHubCredentials } from "../github/connect";
import { parseHostAllowlist } from "../github/download-bundle";
import { parseRepoRef, type RepoRef } from "../github/github-client";
import { DEFAULT_SUBMISSION_LABELS } from "../github/issue-form";

/** Where submitters usually host bundles: GitHub releases, Hugging Face, Zenodo. */
export const DEFAULT_ALLOWED_HOSTS = ["github.com", "objects.githubusercontent.com", "codeload.github.com", "huggingface.co", "*.huggingface.co", "*.hf.co", "zenodo.org"];

/**
 * The webhook route's limits. A delivery's body is read only after its headers pass (event,
 * delivery id, a well-formed signature, a configured repository), streamed with this cap and
 * deadline and HMAC-checked as it arrives; at most this many bodies are read at once, so
 * stalled requests hold at most `maxConcurrent × maxBytes` of memory. GitHub's issue and
 * comment payloads (bodies of at most 65,536 characters, the previous body on an edit) stay
 * well under 2 MiB.
 *
 * Slow senders (anyone can open a connection; only GitHub knows the secret, and a wrong
 * signature shows only once the whole body is in): one client address holds at most
 * `maxPerAddress` of the reading slots (429 beyond; applies when the address is known, i.e.
 * behind a trusted proxy: app/admin/auth.ts clientKey), and after `rateGraceMs` a body must
 * keep arriving at `minBytesPerSecond` or more, measured over each `rateWindowMs`, or it is cut
 * off with 408. GitHub sends a delivery whole within milliseconds, so neither touches it.
 */
export const WEBHOOK_LIMITS = { maxBytes: 2 * 1024 * 1024, readTimeoutMs: 10_000, maxConcurrent: 8, maxPerAddress: 2, minBytesPerSecond: 1024, rateGraceMs: 2_000, rateWindowMs: 1_000 } as const;

/**
 * How often the worker reads stored webhook deliveries, re-renders every issue's status, and
 * reconciles (lists the submission issues updated since the last reconcile, so an issue whose
 * delivery never arrived is still read), and how many pages of 100 issues one reconcile reads
 * per submission label at most (the rest wait for the next one).
 */
export const WORKER_GITHUB_PASS = { deliveryPollMs: 2_000, statusSyncMs: 10_000, reconcileMs: 10 * 60_000, reconcileMaxPages: 10 } as const;

/** The credentials and API root (for lib/github's `connectGitHub`), and how the intake works. */
export interface GitHubSettings extends GitHubCredentials {
  repo: RepoRef | null;
  /**
   * GITHUB_SUBMISSION_LABELS (comma-separated; default DEFAULT_SUBMISSION_LABELS): an issue with any
   * of them is a submission. Our own label and those of the repository's submission forms are
   * added to them (github-forms.ts).
   */
  submissionLabels: string[];
  webhookSecret: string | null;
  allowedHosts: string[];
  maxBundleBytes: number;
  downloadTimeoutMs: number;
  /** Tests only: bundles may come over http from 127.0.0.1. */
  allowLoopbackHttp: boolean;
  /** Links in bot comments point here. */
  publicUrl: string;
  /** Downloaded bundles, named by their sha256. */
  bundleDir: string;
  /** GITHUB_WEBHOOK_MAX_BYTES, default WEBHOOK_LIMITS.maxBytes. */
  webhookMaxBytes: number;
  /** GITHUB_WEBHOOK_READ_TIMEOUT_MS, default WEBHOOK_LIMITS.readTimeoutMs. */
  webhookReadTimeoutMs: number;
  /** GITHUB_WEBHOOK_MAX_CONCURRENT, default WEBHOOK_LIMITS.maxConcurrent. */
  webhookMaxConcurrent: number;
  /** GITHUB_WEBHOOK_MAX_PER_ADDRESS, default WEBHOOK_LIMITS.maxPerAddress (at most webhookMaxConcurrent). */
  webhookMaxPerAddress: number;
  /** GITHUB_WEBHOOK_MIN_BYTES_PER_SEC, default WEBHOOK_LIMITS.minBytesPerSecond; 0: no minimum. */
  webhookMinBytesPerSecond: number;
  /** GITHUB_WEBHOOK_RATE_GRACE_MS, default WEBHOOK_LIMITS.rateGraceMs. */
  webhookRateGraceMs: number;
  /** GITHUB_DELIVERY_POLL_MS, default WORKER_GITHUB_PASS.deliveryPollMs. */
  deliveryPollMs: number;
  /** GITHUB_STATUS_SYNC_MS, default WORKER_GITHUB_PASS.statusSyncMs. */
  statusSyncMs: number;
  /** GITHUB_RECONCILE_MS, default WORKER_GITHUB_PASS.reconcileMs; 0: the worker does not reconcile. */
  reconcileMs: number;
  /** GITHUB_RECONCILE_MAX_PAGES, default WORKER_GITHUB_PASS.reconcileMaxPages. */
  reconcileMaxPages: number;
}

export class SettingsError extends Error {
  override readonly name = "SettingsError";
}

function positive(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new SettingsError(`${name} must be a positive number, got "${raw}"`);
  return n;
}

/** A whole number of `unit` from `min` to `max` (`note` says what a bound means), or `fallback` when unset. */
function whole(env: Record<string, string | undefined>, name: string, fallback: number, range: { min: number; max: number; unit: string; note?: string }): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === "") return fallback;
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < range.min || n > range.max) {
    throw new SettingsError(`${name} must be a whole number of ${range.unit} from ${range.min} to ${range.max}${range.note ? ` (${range.note})` : ""}, got "${raw.slice(0, 100)}"`);
  }
  return n;
}

/** The webhook's share of reading slots per address: at most the slots themselves. */
function perAddress(env: Record<string, string | undefined>, maxConcurrent: number): number {
  const slots = Math.max(1, Math.floor(maxConcurrent));
  return whole(env, "GITHUB_WEBHOOK_MAX_PER_ADDRESS", Math.min(WEBHOOK_LIMITS.maxPerAddress, slots), { min: 1, max: slots, unit: "reading slots", note: "at most GITHUB_WEBHOOK_MAX_CONCURRENT" });
}

const DAY_MS = 86_400_000;

export function githubSettingsFromEnv(env: Record<string, string | undefined> = process.env): GitHubSettings {
  const repoText = env.GITHUB_REPOSITORY?.trim();
  const repo = repoText ? parseRepoRef(repoText) : null;
  if (repoText && !repo) throw new SettingsError(`GITHUB_REPOSITORY must look like owner/name, got "${repoText}"`);
  const app =
    env.GITHUB_APP_ID && env.GITHUB_APP_PRIVATE_KEY && env.GITHUB_APP_INSTALLATION_ID
      ? { appId: env.GITHUB_APP_ID, privateKey: env.GITHUB_APP_PRIVATE_KEY.replace(/\\n/g, "\n"), installationId: positive(env, "GITHUB_APP_INSTALLATION_ID", 0) }
      : null;
  const webhookMaxConcurrent = positive(env, "GITHUB_WEBHOOK_MAX_CONCURRENT", WEBHOOK_LIMITS.maxConcurrent);
  return {
    repo: repo ?? null,
    submissionLabels: submissionLabels(env.GITHUB_SUBMISSION_LABELS),
    token: env.GITHUB_TOKEN?.trim() || null,
    app,
    apiUrl: env.GITHUB_API_URL?.trim() || "https://api.github.com",
    webhookSecret: env.GITHUB_WEBHOOK_SECRET || null,
    allowedHosts: env.BUNDLE_ALLOWED_HOSTS ? parseHostAllowlist(env.BUNDLE_ALLOWED_HOSTS) : DEFAULT_ALLOWED_HOSTS,
    maxBundleBytes: positive(env, "BUNDLE_MAX_BYTES", 512 * 1024 * 1024),
    downloadTimeoutMs: positive(env, "BUNDLE_TIMEOUT_MS", 120_000),
    allowLoopbackHttp: env.AGENTBOARD_TEST_ALLOW_LOOPBACK === "1",
    publicUrl: (env.AGENTBOARD_PUBLIC_URL?.trim() || "http://127.0.0.1:3000").replace(/\/+$/, ""),
    bundleDir: path.resolve(/*turbopackIgnore: true*/ env.AGENTBOARD_BUNDLE_DIR?.trim() || ".agentboard/bundles"),
    webhookMaxBytes: positive(env, "GITHUB_WEBHOOK_MAX_BYTES", WEBHOOK_LIMITS.maxBytes),
    webhookReadTimeoutMs: positive(env, "GITHUB_WEBHOOK_READ_TIMEOUT_MS", WEBHOOK_LIMITS.readTimeoutMs),
    webhookMaxConcurrent,
    webhookMaxPerAddress: perAddress(env, webhookMaxConcurrent),
    webhookMinBytesPerSecond: whole(env, "GITHUB_WEBHOOK_MIN_BYTES_PER_SEC", WEBHOOK_LIMITS.minBytesPerSecond, { min: 0, max: 1024 ** 3, unit: "bytes per second", note: "0: no minimum" }),
    webhookRateGraceMs: whole(env, "GITHUB_WEBHOOK_RATE_GRACE_MS", WEBHOOK_LIMITS.rateGraceMs, { min: 0, max: DAY_MS, unit: "milliseconds" }),
    deliveryPollMs: positive(env, "GITHUB_DELIVERY_POLL_MS", WORKER_GITHUB_PASS.deliveryPollMs),
    statusSyncMs: positive(env, "GITHUB_STATUS_SYNC_MS", WORKER_GITHUB_PASS.statusSyncMs),
    reconcileMs: whole(env, "GITHUB_RECONCILE_MS", WORKER_GITHUB_PASS.reconcileMs, { min: 0, max: 7 * DAY_MS, unit: "milliseconds", note: "0: the worker does not reconcile" }),
    reconcileMaxPages: whole(env, "GITHUB_RECONCILE_MAX_PAGES", WORKER_GITHUB_PASS.reconcileMaxPages, { min: 1, max: 1_000, unit: "pages of 100 issues" }),
  };
}

function submissionLabels(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === "") return [...DEFAULT_SUBMISSION_LABELS];
  const labels = [...new Set(raw.split(",").map((l) => l.trim()).filter(Boolean))];
  // GitHub's own limit on a label name.
  const bad = labels.find((l) => l.length > 50);
  if (bad !== undefined || labels.length === 0) throw new SettingsError(`GITHUB_SUBMISSION_LABELS must be label names (at most 50 characters each) separated by commas, got "${raw.slice(0, 200)}"`);
  return labels;
}

/**
 * The repository whose submission issue form /submit links to: GITHUB_REPOSITORY when it is a
 * valid owner/name. Unlike githubSettingsFromEnv this never throws: a page says what is wrong.
 */
export function submissionFormRepo(env: Record<string, string | undefined> = process.env): { repo: RepoRef; problem: null } | { repo: null; problem: "unset" | "invalid" } {
  const text = env.GITHUB_REPOSITORY?.trim();
  if (!text) return { repo: null, problem: "unset" };
  const repo = parseRepoRef(text);
  return repo ? { repo, problem: null } : { repo: null, problem: "invalid" };
}

/** True when there are credentials to talk to GitHub at all. */
export function githubConfigured(s: GitHubSettings): boolean {
  return hasGitHubCredentials(s);
}
