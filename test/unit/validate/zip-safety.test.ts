/**
 * ZIP bundles: a good archive validates; hostile archives are rejected from the central
 * directory with a precise code, and nothing is ever written to disk.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadBenchmark, type Benchmark } from "../../../lib/benchmark/load-benchmark";
import { validateBundle } from "../../../lib/validate/validate-bundle";
import { writeZip } from "../../helpers/zip-writer";

const here = path.dirname(fileURLToPath(import.meta.url));
const FIXTURES = path.resolve(here, "../../fixtures/vakra-shapes");
const CAP4_FILE = "capability_4_multiturn/regatta.json";
const UUID_REGATTA = "c3a1e5f7-9b2d-4e6f-a1c3-e5f7a9b1d3f5";

// Loaded in beforeEach, not beforeAll: a failing beforeAll marks every test "skipped",
// while a failing beforeEach fails each test, so a broken fixture cannot pass unnoticed.
let benchmark: Benchmark;
let okJson: Buffer;
beforeEach(async () => {
  benchmark ??= await loadBenchmark(FIXTURES);
  okJson ??= readFileSync(path.join(FIXTURES, "predictions/ok", CAP4_FILE));
});

let tmp: string;
let zipPath: string;
beforeEach(() => {
  tmp = mkdtempSync(path.join(tmpdir(), "agentboard-zip-"));
  zipPath = path.join(tmp, "bundle.zip");
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

/** Nothing was extracted: the temp dir holds only the archive. */
function expectOnlyTheZip(): void {
  expect(readdirSync(tmp)).toEqual(["bundle.zip"]);
}

async function expectRejected(code: string, opts: Parameters<typeof validateBundle>[2] = {}) {
  const outcome = await validateBundle(zipPath, benchmark, opts);
  const { report } = outcome;
  expect(report.valid).toBe(false);
  expect(report.errors.map((e) => e.code)).toEqual([code]);
  expect(report.bundle).toEqual({ location: zipPath, kind: "unknown", sha256: null, files: 0 });
  expect(outcome.submission).toBeUndefined();
  expectOnlyTheZip();
  return report.errors[0]!;
}

describe("good ZIP bundles", () => {
  it("validates, and the report's sha256 is the sha256 of the file", async () => {
    const bytes = writeZip(zipPath, [{ name: CAP4_FILE, data: okJson }]);
    const { report, submission } = await validateBundle(zipPath, benchmark);
    expect(report.valid).toBe(true);
    expect(report.summary.errors).toBe(0);
    expect(report.bundle.kind).toBe("zip");
    expect(report.bundle.files).toBe(1);
    const expected = createHash("sha256").update(readFileSync(zipPath)).digest("hex");
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(expected);
    expect(report.bundle.sha256).toBe(expected);
    expect(submission?.sha256).toBe(expected);
    expect(submission?.capabilities.get("multiturn")?.has(UUID_REGATTA)).toBe(true);
    expectOnlyTheZip();
  });

  it("reads stored entries as well as deflated ones", async () => {
    writeZip(zipPath, [{ name: CAP4_FILE, data: okJson, method: "store" }]);
    const { report } = await validateBundle(zipPath, benchmark);
    expect(report.valid).toBe(true);
    expect(report.coverage.multiturn).toMatchObject({ submitted: true, predicted: 1, missing: 0 });
  });

  it("strips a single top-level folder such as output/ (directory entries included)", async () => {
    writeZip(zipPath, [
      { name: "output/", directory: true },
      { name: "output/capability_4_multiturn/", directory: true },
      { name: `output/${CAP4_FILE}`, data: okJson },
      { name: "output/metadata.json", data: JSON.stringify({ agent: "zipped-agent" }) },
    ]);
    const { report } = await validateBundle(zipPath, benchmark);
    expect(report.valid).toBe(true);
    expect(report.summary.errors).toBe(0);
    expect(report.summary.warnings).toBe(0);
    expect(report.bundle.files).toBe(2);
    expect(report.coverage.multiturn).toMatchObject({ submitted: true, expected: 1, predicted: 1, missing: 0 });
    expect(report.metadata).toEqual({ agent: "zipped-agent" });
    expectOnlyTheZip();
  });

  it("accepts a highly compressible entry below the ratio floor (1 MiB)", async () => {
    const padded = Buffer.concat([okJson, Buffer.alloc(512 * 1024, 0x20)]);
    writeZip(zipPath, [{ name: CAP4_FILE, data: padded }]);
    const { report } = await validateBundle(zipPath, benchmark);
    expect(report.valid).toBe(true);
    expect(report.coverage.multiturn?.predicted).toBe(1);
  });

  it("accepts a large entry with a low compression ratio (stored, 2 MiB)", async () => {
    const padded = Buffer.concat([okJson, Buffer.alloc(2 * 1024 * 1024, 0x20)]);
    writeZip(zipPath, [{ name: CAP4_FILE, data: padded, method: "store" }]);
    const { report } = await validateBundle(zipPath, benchmark);
    expect(report.valid).toBe(true);
    expect(report.coverage.multiturn?.predicted).toBe(1);
  });
});

describe("hostile ZIP bundles are rejected before anything is inflated or written", () => {
  it("absolute entry path → zip_unsafe_path", async () => {
    const target = path.join(tmp, "escaped-absolute.json");
    writeZip(zipPath, [
      { name: CAP4_FILE, data: okJson },
      { name: target, data: "[]" },
    ]);
    const e = await expectRejected("zip_unsafe_path");
    expect(e.file).toBe(target);
    expect(e.message).toContain("absolute path");
    expect(existsSync(target)).toBe(false);
  });

  it("Windows drive path → zip_unsafe_path", async () => {
    writeZip(zipPath, [{ name: "C:/Windows/evil.json", data: "[]" }]);
    const e = await expectRejected("zip_unsafe_path");
    expect(e.file).toBe("C:/Windows/evil.json");
    expect(e.message).toContain("absolute path");
  });

  it("`..` entry path → zip_unsafe_path", async () => {
    const name = "capability_4_multiturn/../../escaped-dotdot.json";
    writeZip(zipPath, [
      { name: CAP4_FILE, data: okJson },
      { name, data: "[]" },
    ]);
    const e = await expectRejected("zip_unsafe_path");
    expect(e.file).toBe(name);
    expect(e.message).toContain('".."');
    expect(existsSync(path.resolve(tmp, "..", "escaped-dotdot.json"))).toBe(false);
  });

  it("`..` with backslashes → zip_unsafe_path", async () => {
    writeZip(zipPath, [{ name: "capability_4_multiturn\\..\\..\\evil.json", data: "[]" }]);
    const e = await expectRejected("zip_unsafe_path");
    expect(e.message).toContain('".."');
  });

  it("symlink entry → symlink", async () => {
    writeZip(zipPath, [{ name: CAP4_FILE, data: "/etc/passwd", symlink: true }]);
    const e = await expectRejected("symlink");
    expect(e.file).toBe(CAP4_FILE);
  });

  it("more entries than maxEntries → zip_too_many_entries", async () => {
    writeZip(zipPath, [
      { name: CAP4_FILE, data: okJson },
      { name: "metadata.json", data: "{}" },
      { name: "run.log", data: "log" },
    ]);
    const e = await expectRejected("zip_too_many_entries", { zipLimits: { maxEntries: 2 } });
    expect(e.file).toBe("bundle.zip");
    expect(e.message).toContain("3 entries");
    expect(e.message).toContain("at most 2");
  });

  it("exactly maxEntries entries is still accepted", async () => {
    writeZip(zipPath, [
      { name: CAP4_FILE, data: okJson },
      { name: "metadata.json", data: "{}" },
    ]);
    const { report } = await validateBundle(zipPath, benchmark, { zipLimits: { maxEntries: 2 } });
    expect(report.valid).toBe(true);
  });

  it("total uncompressed size over maxTotalBytes → zip_too_large", async () => {
    writeZip(zipPath, [
      { name: CAP4_FILE, data: okJson },
      { name: "metadata.json", data: "{}" },
    ]);
    const limit = okJson.length; // the two entries together exceed it by 2 bytes
    const e = await expectRejected("zip_too_large", { zipLimits: { maxTotalBytes: limit } });
    expect(e.file).toBe("bundle.zip");
    expect(e.message).toContain(`entries total ${okJson.length + 2} bytes`);
    expect(e.message).toContain(`at most ${limit}`);
  });

  it("a header that overstates the uncompressed size counts the declared size", async () => {
    writeZip(zipPath, [{ name: CAP4_FILE, data: okJson, method: "store", declaredSize: okJson.length }]);
    const fine = await validateBundle(zipPath, benchmark, { zipLimits: { maxTotalBytes: okJson.length } });
    expect(fine.report.valid).toBe(true);
    rmSync(zipPath);
    writeZip(zipPath, [{ name: CAP4_FILE, data: okJson, declaredSize: 3 * 1024 ** 3 }]);
    const { report } = await validateBundle(zipPath, benchmark);
    expect(report.valid).toBe(false);
    expect(report.errors.map((e) => e.code).sort()).toEqual(["zip_bomb", "zip_too_large"]);
    expectOnlyTheZip();
  });

  it("high compression ratio (5 MB of zeros, default limits) → zip_bomb", async () => {
    writeZip(zipPath, [{ name: CAP4_FILE, data: Buffer.alloc(5 * 1024 * 1024) }]);
    const e = await expectRejected("zip_bomb");
    expect(e.file).toBe(CAP4_FILE);
    expect(e.message).toMatch(/^compression ratio \d+:1 exceeds 200:1 \(5242880 bytes from \d+\)$/);
  });

  it("a stored entry whose declared size differs from its data → zip_unreadable", async () => {
    writeZip(zipPath, [{ name: CAP4_FILE, data: okJson, method: "store", declaredSize: 10 }]);
    const e = await expectRejected("zip_unreadable");
    expect(e.file).toBe("bundle.zip");
  });

  it("a deflated entry that inflates past its declared size → unreadable_file (a report, not an exception)", async () => {
    const big = Buffer.concat([okJson, Buffer.alloc(64 * 1024, 0x20)]);
    writeZip(zipPath, [
      { name: CAP4_FILE, data: big, declaredSize: okJson.length },
      { name: "metadata.json", data: JSON.stringify({ agent: "liar" }) },
    ]);
    const { report, submission } = await validateBundle(zipPath, benchmark);
    expect(report.valid).toBe(false);
    expect(report.bundle.kind).toBe("zip");
    expect(report.errors).toHaveLength(1);
    expect(report.errors[0]).toMatchObject({ severity: "error", code: "unreadable_file", file: CAP4_FILE });
    expect(report.errors[0]!.message).toContain(`expected ${okJson.length}`);
    expect(report.coverage.multiturn?.predicted).toBe(0);
    // The other, honest entry is still read.
    expect(report.metadata).toEqual({ agent: "liar" });
    expect(submission?.capabilities.get("multiturn")?.size ?? 0).toBe(0);
    expectOnlyTheZip();
  });

  it("a file that is not a ZIP → zip_unreadable", async () => {
    writeFileSync(zipPath, "this is plain text, not an archive\n");
    const e = await expectRejected("zip_unreadable");
    expect(e.file).toBe("bundle.zip");
    expect(e.message).toContain("not a readable ZIP archive");
  });

  it("an empty file → zip_unreadable", async () => {
    writeFileSync(zipPath, "");
    const e = await expectRejected("zip_unreadable");
    expect(e.file).toBe("bundle.zip");
  });
});

describe("folder bundles", () => {
  it("a symlink inside a folder bundle → symlink", async () => {
    const bundle = path.join(tmp, "folder");
    mkdirSync(path.join(bundle, "capability_4_multiturn"), { recursive: true });
    symlinkSync(path.join(FIXTURES, "predictions/ok", CAP4_FILE), path.join(bundle, CAP4_FILE));
    const { report, submission } = await validateBundle(bundle, benchmark);
    expect(report.valid).toBe(false);
    expect(report.errors).toEqual([{ severity: "error", code: "symlink", file: CAP4_FILE, message: "symbolic links are not allowed in a bundle" }]);
    expect(submission).toBeUndefined();
  });

  it("a missing bundle → bundle_not_found", async () => {
    const { report } = await validateBundle(path.join(tmp, "nope.zip"), benchmark);
    expect(report.valid).toBe(false);
    expect(report.errors.map((e) => e.code)).toEqual(["bundle_not_found"]);
  });
});
