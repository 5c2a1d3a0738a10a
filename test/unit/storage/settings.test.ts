/** Storage settings: which store a location string names, and what the environment says about S3. */
import { describe, expect, it } from "vitest";
import path from "node:path";
import { storageFromEnv, storageOptionsFromEnv } from "../../../lib/storage/env";
import { storageFromUrl } from "../../../lib/storage/from-url";

const keys = { AWS_ACCESS_KEY_ID: "AKIDEXAMPLE", AWS_SECRET_ACCESS_KEY: "secret" };

describe("storageFromUrl", () => {
  it("names a local folder by path or file URL, and object storage by s3://bucket/prefix", () => {
    expect(storageFromUrl("rel/store", { maxBytes: 5 }).location).toBe(path.resolve("rel/store"));
    expect(storageFromUrl("file:///srv/blobs", { maxBytes: 5 }).location).toBe("/srv/blobs");
    const s3 = storageFromUrl("s3://my-bucket/boards/prod/", { maxBytes: 5, s3: { credentials: { accessKeyId: "a", secretAccessKey: "b" } } });
    expect(s3.location).toBe("s3://my-bucket/boards/prod");
    expect(s3.maxBytes).toBe(5);
  });

  it("refuses what it cannot mean", () => {
    const creds = { s3: { credentials: { accessKeyId: "a", secretAccessKey: "b" } }, maxBytes: 1 };
    expect(() => storageFromUrl("", creds)).toThrow(/empty/);
    expect(() => storageFromUrl("s3://Bad_Bucket/x", creds)).toThrow(/not a valid bucket name/);
    expect(() => storageFromUrl("s3://bucket/x?versionId=1", creds)).toThrow(/only s3:\/\/bucket\/prefix/);
    expect(() => storageFromUrl("s3://key:secret@bucket/x", creds)).toThrow(/only s3:\/\/bucket\/prefix/);
    expect(() => storageFromUrl("gs://bucket/x", creds)).toThrow(/unknown scheme/);
    expect(() => storageFromUrl("s3://bucket/x", { maxBytes: 1 })).toThrow(/no S3 credentials/);
  });
});

describe("storageOptionsFromEnv", () => {
  it("reads the endpoint, region, keys and path style, with their defaults", () => {
    expect(storageOptionsFromEnv({}, 10)).toEqual({ maxBytes: 10, s3: { forcePathStyle: false, credentials: "sdk-default-chain" } });
    expect(storageOptionsFromEnv({ ...keys, AGENTBOARD_S3_ENDPOINT: "http://127.0.0.1:9000", AWS_REGION: "eu-west-3", AWS_SESSION_TOKEN: "tok", AGENTBOARD_S3_TIMEOUT_MS: "5000" }, 10)).toEqual({
      maxBytes: 10,
      s3: { endpoint: "http://127.0.0.1:9000", region: "eu-west-3", forcePathStyle: true, credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret", sessionToken: "tok" }, timeouts: { operationMs: 5000 } },
    });
    expect(storageOptionsFromEnv({ AGENTBOARD_S3_ENDPOINT: "http://minio:9000", AGENTBOARD_S3_FORCE_PATH_STYLE: "false" }, 1).s3?.forcePathStyle).toBe(false);
    expect(storageOptionsFromEnv({ AWS_DEFAULT_REGION: "us-west-2", AGENTBOARD_S3_FORCE_PATH_STYLE: " 1 " }, 1).s3).toMatchObject({ region: "us-west-2", forcePathStyle: true });
  });

  it("refuses half a key pair, a vague flag and a bad time-out", () => {
    expect(() => storageOptionsFromEnv({ AWS_ACCESS_KEY_ID: "a" }, 1)).toThrow(/both AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/);
    expect(() => storageOptionsFromEnv({ AGENTBOARD_S3_FORCE_PATH_STYLE: "maybe" }, 1)).toThrow(/AGENTBOARD_S3_FORCE_PATH_STYLE must be true or false/);
    expect(() => storageOptionsFromEnv({ AGENTBOARD_S3_TIMEOUT_MS: "soon" }, 1)).toThrow(/AGENTBOARD_S3_TIMEOUT_MS/);
  });

  it("picks AGENTBOARD_STORAGE_URL, else the default folder", () => {
    expect(storageFromEnv({}, { defaultDir: "/var/agentboard/storage", maxBytes: 1 }).location).toBe("/var/agentboard/storage");
    expect(storageFromEnv({ ...keys, AGENTBOARD_STORAGE_URL: "s3://boards/main" }, { defaultDir: "/unused", maxBytes: 1 }).location).toBe("s3://boards/main");
  });
});
