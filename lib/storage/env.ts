/**
 * The storage settings from an environment (the scripts hand theirs over; lib/storage reads
 * none itself). Every setting with its default:
 * - AGENTBOARD_STORAGE_URL: `s3://bucket/prefix` or a local folder; default `defaultDir`
 *   (the caller's, e.g. `.agentboard/storage`).
 * - AGENTBOARD_S3_ENDPOINT: an S3-compatible server's URL (MinIO, R2…); default AWS S3.
 * - AWS_REGION (or AWS_DEFAULT_REGION): default us-east-1.
 * - AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN: static keys; without them the
 *   SDK's own chain is used (instance role, AWS_PROFILE…).
 * - AGENTBOARD_S3_FORCE_PATH_STYLE: 1/true or 0/false; default true when an endpoint is set
 *   (what self-hosted servers expect), false for AWS S3.
 * - AGENTBOARD_S3_TIMEOUT_MS: the overall deadline of one request, body included; default 15 min.
 */
import type { BlobStore } from "./blob-store";
import { storageFromUrl, type StorageOptions } from "./from-url";

type Env = Record<string, string | undefined>;

const setting = (env: Env, name: string): string | undefined => {
  const v = env[name]?.trim();
  return v ? v : undefined;
};

function flag(env: Env, name: string): boolean | undefined {
  const v = setting(env, name)?.toLowerCase();
  if (v === undefined) return undefined;
  if (["1", "true", "yes"].includes(v)) return true;
  if (["0", "false", "no"].includes(v)) return false;
  throw new Error(`${name} must be true or false, not ${JSON.stringify(v)}`);
}

export function storageOptionsFromEnv(env: Env, maxBytes: number): StorageOptions {
  const endpoint = setting(env, "AGENTBOARD_S3_ENDPOINT");
  const accessKeyId = setting(env, "AWS_ACCESS_KEY_ID");
  const secretAccessKey = setting(env, "AWS_SECRET_ACCESS_KEY");
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) throw new Error("set both AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or neither");
  const sessionToken = setting(env, "AWS_SESSION_TOKEN");
  const timeout = setting(env, "AGENTBOARD_S3_TIMEOUT_MS");
  const operationMs = timeout === undefined ? undefined : Number(timeout);
  if (operationMs !== undefined && !(Number.isInteger(operationMs) && operationMs > 0)) throw new Error(`AGENTBOARD_S3_TIMEOUT_MS must be a positive whole number of milliseconds, not ${JSON.stringify(timeout)}`);
  const region = setting(env, "AWS_REGION") ?? setting(env, "AWS_DEFAULT_REGION");
  return {
    maxBytes,
    s3: {
      ...(endpoint ? { endpoint } : {}),
      ...(region ? { region } : {}),
      forcePathStyle: flag(env, "AGENTBOARD_S3_FORCE_PATH_STYLE") ?? endpoint !== undefined,
      credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) } : "sdk-default-chain",
      ...(operationMs ? { timeouts: { operationMs } } : {}),
    },
  };
}

/** The store a process uses: AGENTBOARD_STORAGE_URL, or the local folder `defaultDir`. */
export function storageFromEnv(env: Env, opts: { defaultDir: string; maxBytes: number }): BlobStore {
  return storageFromUrl(setting(env, "AGENTBOARD_STORAGE_URL") ?? opts.defaultDir, storageOptionsFromEnv(env, opts.maxBytes));
}
