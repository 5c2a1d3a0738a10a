/**
 * The storage port's contract, the worker cache, trees and bundles: one test body run against
 * the local folder and against S3 through @aws-sdk/client-s3 and a local S3-compatible server
 * (test/helpers/fake-s3-server.ts). Wrong content is planted in the store itself (the folder's
 * file, the server's object) to show that nothing unverified is ever handed out.
 */
import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadBenchmark } from "../../lib/benchmark/load-benchmark";
import { BlobIntegrityError, BlobNotFoundError, BlobTooLargeError, blobKey, type BlobStore } from "../../lib/storage/blob-store";
import { BundleUnavailableError, resolveBundle, storeBundle } from "../../lib/storage/bundle";
import { cachePathOf, fetchToCache } from "../../lib/storage/cache";
import { storageFromUrl } from "../../lib/storage/from-url";
import { localBlobStore } from "../../lib/storage/local-store";
import { s3BlobStore } from "../../lib/storage/s3-store";
import { TreeError, materializeTree, putTree, treeHash } from "../../lib/storage/tree";
import { startFakeS3Server, type FakeS3Server } from "../helpers/fake-s3-server";

const sha = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");
const MINI_BENCHMARK = path.resolve(import.meta.dirname, "../fixtures/mini-benchmark");
const LIMIT = 8 * 1024 * 1024;

let s3: FakeS3Server;
let work: string;
beforeAll(async () => {
  s3 = await startFakeS3Server();
  work = mkdtempSync(path.join(tmpdir(), "agentboard-storage-"));
});
afterAll(async () => {
  await s3.close();
  rmSync(work, { recursive: true, force: true });
});

let seq = 0;
const freshDir = (name: string) => {
  const d = path.join(work, `${name}-${++seq}`);
  mkdirSync(d, { recursive: true });
  return d;
};

/** One backend: a store over a fresh location, and a way to put bytes under a hash's name behind the store's back. */
interface Backend {
  store(maxBytes?: number): BlobStore;
  plant(hash: string, bytes: Buffer): void;
}

const BACKENDS: Record<"local" | "s3", () => Backend> = {
  local: () => {
    const root = freshDir("store");
    return {
      store: (maxBytes = LIMIT) => storageFromUrl(root, { maxBytes }),
      plant(hash, bytes) {
        const file = path.join(root, ...blobKey(hash).split("/"));
        mkdirSync(path.dirname(file), { recursive: true });
        writeFileSync(file, bytes);
      },
    };
  },
  s3: () => {
    const prefix = `run-${++seq}/blobs`;
    return {
      store: (maxBytes = LIMIT) => storageFromUrl(`s3://${s3.bucket}/${prefix}`, { maxBytes, s3: { endpoint: s3.endpoint, forcePathStyle: true, credentials: s3.credentials } }),
      plant: (hash, bytes) => s3.setObject(`${prefix}/${blobKey(hash)}`, bytes),
    };
  },
};

/** Counts the reads a store serves, to see what a cache answered by itself. */
function counting(store: BlobStore): BlobStore & { reads: string[] } {
  const reads: string[] = [];
  return Object.assign(Object.create(store) as BlobStore, {
    reads,
    readTo: (hash: string, file: string) => (reads.push(hash), store.readTo(hash, file)),
  });
}

describe.each(Object.keys(BACKENDS) as (keyof typeof BACKENDS)[])("storage port (%s)", (kind) => {
  let backend: Backend;
  let store: BlobStore;
  beforeEach(() => {
    backend = BACKENDS[kind]();
    store = backend.store();
  });

  describe("contract", () => {
    it("stores bytes under their sha256, once, and reads them back", async () => {
      const bytes = Buffer.from("a blob of bytes\n");
      const first = await store.put({ bytes });
      expect(first).toEqual({ sha256: sha(bytes), size: bytes.length, created: true });
      expect(await store.has(sha(bytes))).toBe(true);
      expect(await store.size(sha(bytes))).toBe(bytes.length);
      expect(await store.put({ bytes })).toEqual({ ...first, created: false });

      const out = path.join(freshDir("out"), "copy");
      expect(await store.readTo(sha(bytes), out)).toEqual({ size: bytes.length });
      expect(readFileSync(out)).toEqual(bytes);
    });

    it("stores a file by streaming it, the same blob as its bytes", async () => {
      const bytes = Buffer.alloc(3 * 1024 * 1024 + 17);
      for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31) % 251;
      const file = path.join(freshDir("src"), "big.bin");
      writeFileSync(file, bytes);
      expect(await store.put({ file })).toEqual({ sha256: sha(bytes), size: bytes.length, created: true });
      expect(await store.put({ bytes })).toMatchObject({ sha256: sha(bytes), created: false });
      const out = path.join(freshDir("out"), "big.bin");
      await store.readTo(sha(bytes), out);
      expect(sha(readFileSync(out))).toBe(sha(bytes));
    });

    it("stores an empty blob", async () => {
      const empty = Buffer.alloc(0);
      expect(await store.put({ bytes: empty })).toMatchObject({ sha256: sha(empty), size: 0 });
      const out = path.join(freshDir("out"), "empty");
      await store.readTo(sha(empty), out);
      expect(readFileSync(out).length).toBe(0);
    });

    it("refuses bytes that do not hash to the sha256 the caller expects, storing nothing", async () => {
      const bytes = Buffer.from("what arrived");
      const err = await store.put({ bytes }, { expectSha256: sha("what was announced") }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BlobIntegrityError);
      expect(await store.has(sha(bytes))).toBe(false);
    });

    it("says plainly when a blob is absent, and creates no file for it", async () => {
      const missing = sha("never stored");
      expect(await store.has(missing)).toBe(false);
      expect(await store.size(missing)).toBeUndefined();
      const out = path.join(freshDir("out"), "missing");
      await expect(store.readTo(missing, out)).rejects.toBeInstanceOf(BlobNotFoundError);
      expect(existsSync(out)).toBe(false);
    });

    it("never hands out bytes that do not match the name they are stored under", async () => {
      const good = Buffer.from("the real content");
      backend.plant(sha(good), Buffer.from("other content, same name"));
      const out = path.join(freshDir("out"), "copy");
      await expect(store.readTo(sha(good), out)).rejects.toBeInstanceOf(BlobIntegrityError);
      expect(existsSync(out)).toBe(false);
      expect(readdirSync(path.dirname(out))).toEqual([]); // no temporary file left behind either
    });

    it("refuses objects above the size limit both ways", async () => {
      const small = backend.store(10);
      await expect(small.put({ bytes: Buffer.alloc(11, 1) })).rejects.toBeInstanceOf(BlobTooLargeError);
      expect(await store.has(sha(Buffer.alloc(11, 1)))).toBe(false);

      const big = Buffer.alloc(11, 2);
      await store.put({ bytes: big }); // stored by a host with a higher limit
      const out = path.join(freshDir("out"), "big");
      await expect(small.readTo(sha(big), out)).rejects.toBeInstanceOf(BlobTooLargeError);
      expect(existsSync(out)).toBe(false);
    });

    it("refuses a name that is not a sha256 before it becomes a path or key", async () => {
      await expect(store.has("../../etc/passwd")).rejects.toThrow(/not a sha256/);
      await expect(store.readTo("ABC", path.join(work, "x"))).rejects.toThrow(/not a sha256/);
    });
  });

  describe("worker cache", () => {
    it("fetches once, then answers from a copy it has checked", async () => {
      const bytes = Buffer.from("cached content");
      await store.put({ bytes });
      const reads = counting(store);
      const cacheDir = freshDir("cache");
      const file = await fetchToCache(reads, sha(bytes), cacheDir);
      expect(file).toBe(cachePathOf(cacheDir, sha(bytes)));
      expect(readFileSync(file)).toEqual(bytes);
      expect(await fetchToCache(reads, sha(bytes), cacheDir)).toBe(file);
      expect(reads.reads).toEqual([sha(bytes)]);
    });

    it("fetches again when the cached copy was damaged or truncated", async () => {
      const bytes = Buffer.from("content that gets damaged in the cache");
      await store.put({ bytes });
      const reads = counting(store);
      const cacheDir = freshDir("cache");
      const file = await fetchToCache(reads, sha(bytes), cacheDir);

      writeFileSync(file, "tampered");
      expect(readFileSync(await fetchToCache(reads, sha(bytes), cacheDir))).toEqual(bytes);
      truncateSync(file, 5);
      expect(readFileSync(await fetchToCache(reads, sha(bytes), cacheDir))).toEqual(bytes);
      expect(reads.reads).toHaveLength(3);
    });

    it("never trusts wrong content from the store, even over a damaged cached copy", async () => {
      const good = Buffer.from("what the submission holds");
      backend.plant(sha(good), Buffer.from("what a broken store returns"));
      const cacheDir = freshDir("cache");
      mkdirSync(path.dirname(cachePathOf(cacheDir, sha(good))), { recursive: true });
      writeFileSync(cachePathOf(cacheDir, sha(good)), "half a download");
      await expect(fetchToCache(store, sha(good), cacheDir)).rejects.toBeInstanceOf(BlobIntegrityError);
      expect(readFileSync(cachePathOf(cacheDir, sha(good)), "utf8")).toBe("half a download"); // left as it was, and still not trusted:
      await expect(fetchToCache(store, sha(good), cacheDir)).rejects.toBeInstanceOf(BlobIntegrityError);
    });

    it("shares one download among concurrent fetches of the same blob", async () => {
      const bytes = Buffer.alloc(512 * 1024, 7);
      await store.put({ bytes });
      const reads = counting(store);
      const cacheDir = freshDir("cache");
      const files = await Promise.all(Array.from({ length: 6 }, () => fetchToCache(reads, sha(bytes), cacheDir)));
      expect(new Set(files).size).toBe(1);
      expect(reads.reads).toEqual([sha(bytes)]);
      expect(sha(readFileSync(files[0] as string))).toBe(sha(bytes));
    });

    it("reports a blob the store lacks", async () => {
      await expect(fetchToCache(store, sha("absent"), freshDir("cache"))).rejects.toBeInstanceOf(BlobNotFoundError);
    });
  });

  describe("trees", () => {
    it("round-trips a benchmark folder with nested folders to another host's cache", async () => {
      const stored = await putTree(store, MINI_BENCHMARK, { exclude: (rel) => rel === ".agentboard-cache" });
      expect(Object.keys(stored.manifest)).toEqual(["benchmark.yaml", "groundtruth/capability_2_dashboard_apis/harbor.json", "groundtruth/capability_4_multiturn/harbor.json"]);
      expect(stored.files).toBe(3);
      for (const [rel, hash] of Object.entries(stored.manifest)) expect(hash).toBe(sha(readFileSync(path.join(MINI_BENCHMARK, rel))));

      const reads = counting(store);
      const cacheDir = freshDir("other-host");
      const folder = await materializeTree(reads, stored.manifest, cacheDir);
      expect(folder).toBe(path.join(cacheDir, "trees", treeHash(stored.manifest)));
      for (const rel of Object.keys(stored.manifest)) expect(readFileSync(path.join(folder, rel))).toEqual(readFileSync(path.join(MINI_BENCHMARK, rel)));
      // The loader sees the same benchmark: same content hash as the original folder.
      expect((await loadBenchmark(folder)).content?.hash).toBe((await loadBenchmark(MINI_BENCHMARK)).content?.hash);
      expect((await loadBenchmark(folder)).content?.hash).toMatch(/^[0-9a-f]{64}$/);

      expect(await materializeTree(reads, stored.manifest, cacheDir)).toBe(folder);
      expect(reads.reads).toHaveLength(3); // the second call read nothing from the store
    });

    it("lays a damaged, extended or shortened folder out again, from the checked cache", async () => {
      const src = freshDir("tree");
      mkdirSync(path.join(src, "a/b"), { recursive: true });
      writeFileSync(path.join(src, "top.txt"), "top");
      writeFileSync(path.join(src, "a/b/deep.txt"), "deep");
      const { manifest } = await putTree(store, src);
      const cacheDir = freshDir("cache");
      const folder = await materializeTree(store, manifest, cacheDir);

      writeFileSync(path.join(folder, "a/b/deep.txt"), "edited in place");
      await materializeTree(store, manifest, cacheDir);
      expect(readFileSync(path.join(folder, "a/b/deep.txt"), "utf8")).toBe("deep");

      writeFileSync(path.join(folder, "a/extra.txt"), "not in the manifest");
      await materializeTree(store, manifest, cacheDir);
      expect(existsSync(path.join(folder, "a/extra.txt"))).toBe(false);

      rmSync(path.join(folder, "top.txt"));
      await materializeTree(store, manifest, cacheDir);
      expect(readFileSync(path.join(folder, "top.txt"), "utf8")).toBe("top");

      // A link is not a laid-out file even when what it points at has the right bytes.
      rmSync(path.join(folder, "top.txt"));
      symlinkSync(path.join(src, "top.txt"), path.join(folder, "top.txt"));
      await materializeTree(store, manifest, cacheDir);
      expect(lstatSync(path.join(folder, "top.txt")).isFile()).toBe(true);
      expect(readFileSync(path.join(src, "top.txt"), "utf8")).toBe("top"); // the link's target untouched
    });

    it("lists empty folders and exclusions, and refuses links before storing anything", async () => {
      const src = freshDir("tree");
      mkdirSync(path.join(src, "empty/inner"), { recursive: true });
      mkdirSync(path.join(src, ".cache"));
      writeFileSync(path.join(src, ".cache/derived"), "x");
      writeFileSync(path.join(src, "file.txt"), "content");
      const stored = await putTree(store, src, { exclude: (rel) => rel === ".cache" });
      expect(stored).toMatchObject({ manifest: { "file.txt": sha("content") }, emptyDirs: ["empty/inner", "empty"], excluded: [".cache"] });

      writeFileSync(path.join(src, "secret-target"), "elsewhere");
      symlinkSync(path.join(src, "secret-target"), path.join(src, "link"));
      const puts: unknown[] = [];
      const watched = Object.assign(Object.create(store) as BlobStore, { put: (...a: Parameters<BlobStore["put"]>) => (puts.push(a), store.put(...a)) });
      await expect(putTree(watched, src)).rejects.toThrow(/link: a symbolic link/);
      expect(puts).toEqual([]);
    });

    it("bounds the file count and total size", async () => {
      const src = freshDir("tree");
      for (const n of ["1", "2", "3"]) writeFileSync(path.join(src, n), "12345");
      await expect(putTree(store, src, { limits: { maxFiles: 2, maxBytes: 1000 } })).rejects.toThrow(/more than 2 files/);
      await expect(putTree(store, src, { limits: { maxFiles: 10, maxBytes: 12 } })).rejects.toThrow(/more than 12 bytes/);
      const { manifest } = await putTree(store, src);
      await expect(materializeTree(store, manifest, freshDir("cache"), { maxFiles: 2, maxBytes: 1000 })).rejects.toThrow(/above the limit of 2/);
      await expect(materializeTree(store, manifest, freshDir("cache"), { maxFiles: 10, maxBytes: 12 })).rejects.toThrow(/more than 12 bytes/);
    });

    it("refuses manifests whose paths would leave the folder, writing nothing", async () => {
      const { sha256 } = await store.put({ bytes: Buffer.from("payload") });
      const jail = freshDir("jail");
      const cacheDir = path.join(jail, "cache");
      mkdirSync(cacheDir);
      const escapes: Record<string, string>[] = [
        { "../escaped": sha256 },
        { "a/../../escaped": sha256 },
        { "/tmp/escaped-absolute": sha256 },
        { "C:/escaped": sha256 },
        { "a\\..\\..\\escaped": sha256 },
        { "./a": sha256 },
        { "a//b": sha256 },
        { "": sha256 },
        { a: sha256, "a/b": sha256 }, // "a" would be a file and a folder
        { ok: "not-a-sha256" },
      ];
      const reads = counting(store);
      for (const manifest of escapes) await expect(materializeTree(reads, manifest, cacheDir), JSON.stringify(manifest)).rejects.toBeInstanceOf(TreeError);
      expect(reads.reads).toEqual([]);
      expect(readdirSync(jail)).toEqual(["cache"]);
      expect(readdirSync(cacheDir)).toEqual([]);
      expect(existsSync("/tmp/escaped-absolute")).toBe(false);
    });

    it("leaves no folder behind when a file in the store is wrong", async () => {
      const src = freshDir("tree");
      writeFileSync(path.join(src, "good.txt"), "good");
      writeFileSync(path.join(src, "bad.txt"), "will be replaced in the store");
      const { manifest } = await putTree(store, src);
      backend.plant(sha("will be replaced in the store"), Buffer.from("wrong bytes"));
      const cacheDir = freshDir("cache");
      await expect(materializeTree(store, manifest, cacheDir)).rejects.toBeInstanceOf(BlobIntegrityError);
      expect(readdirSync(path.join(cacheDir, "trees"))).toEqual([]);
    });
  });

  describe("bundles", () => {
    it("resolves a bundle on a second machine, where the original path is absent", async () => {
      const bytes = Buffer.from(`PK\u0003\u0004 a bundle ${kind}`);
      const firstHost = freshDir("host-1");
      const original = path.join(firstHost, "bundle.zip");
      writeFileSync(original, bytes);
      const hash = await storeBundle(store, original);
      expect(hash).toBe(sha(bytes));

      const reads = counting(store);
      expect(await resolveBundle(reads, { path: original, sha256: hash }, freshDir("cache-1"))).toBe(original);
      expect(reads.reads).toEqual([]);

      rmSync(firstHost, { recursive: true }); // the second machine has no such path
      const cache2 = freshDir("cache-2");
      const resolved = await resolveBundle(reads, { path: original, sha256: hash }, cache2);
      expect(resolved.startsWith(cache2 + path.sep)).toBe(true);
      expect(readFileSync(resolved)).toEqual(bytes);
    });

    it("takes the stored copy when the file at the original path changed", async () => {
      const original = path.join(freshDir("host"), "bundle.zip");
      writeFileSync(original, "as received");
      const hash = await storeBundle(store, original);
      writeFileSync(original, "edited afterwards");
      const resolved = await resolveBundle(store, { path: original, sha256: hash }, freshDir("cache"));
      expect(resolved).not.toBe(original);
      expect(readFileSync(resolved, "utf8")).toBe("as received");
    });

    it("refuses to store a bundle that changed since it was validated", async () => {
      const file = path.join(freshDir("host"), "bundle.zip");
      writeFileSync(file, "edited after validation");
      await expect(storeBundle(store, file, sha("as validated"))).rejects.toBeInstanceOf(BlobIntegrityError);
      expect(await store.has(sha("edited after validation"))).toBe(false);
    });

    it("names the sha256 when neither the path nor the store has the bundle", async () => {
      const hash = sha("a bundle nobody stored");
      const err = await resolveBundle(store, { path: path.join(work, "nowhere.zip"), sha256: hash }, freshDir("cache")).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BundleUnavailableError);
      expect((err as Error).message).toContain(hash);
    });
  });
});

describe("S3 specifics", () => {
  it("sends each upload's sha256 as the payload hash the server checks, without aws-chunked framing", async () => {
    const prefix = "specifics";
    const store = storageFromUrl(`s3://${s3.bucket}/${prefix}/`, { maxBytes: LIMIT, s3: { endpoint: s3.endpoint, forcePathStyle: true, credentials: s3.credentials } });
    const file = path.join(freshDir("src"), "f");
    writeFileSync(file, "uploaded from a file");
    const { sha256 } = await store.put({ file });
    const key = `${prefix}/${blobKey(sha256)}`;
    expect(s3.requests.filter((r) => r.method === "PUT" && r.key === key).map((r) => r.payloadSha256)).toEqual([sha256]);
    expect(s3.getObject(key)?.toString()).toBe("uploaded from a file");
    expect(s3.refusals.filter((r) => !r.includes("NoSuchKey"))).toEqual([]);
  });

  it("refuses the wrong access key", async () => {
    const store = storageFromUrl(`s3://${s3.bucket}/x`, { maxBytes: LIMIT, s3: { endpoint: s3.endpoint, forcePathStyle: true, credentials: { accessKeyId: "AKIDWRONG", secretAccessKey: "nope" } } });
    await expect(store.put({ bytes: Buffer.from("x") })).rejects.toThrow(/object storage request failed: HEAD s3:\/\/agentboard-test\/x/);
  });

  it("gives up on a request the server never answers", async () => {
    const store = s3BlobStore({ bucket: s3.bucket, prefix: "slow", maxBytes: LIMIT, endpoint: s3.endpoint, forcePathStyle: true, credentials: s3.credentials, timeouts: { operationMs: 300 }, maxAttempts: 1 });
    const hash = sha("never answered");
    s3.hang(`slow/${blobKey(hash)}`);
    const out = path.join(freshDir("out"), "f");
    await expect(store.readTo(hash, out)).rejects.toThrow(/timed out/);
    await expect(store.has(hash)).rejects.toThrow(/timed out/);
    expect(existsSync(out)).toBe(false);
  });
});
