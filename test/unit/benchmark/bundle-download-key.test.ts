/** `bundleDownload` in benchmark.yaml: on unless set to false, a precise error for anything else, and a spec without it hashes as before. */
import { describe, expect, it } from "vitest";
import { BenchmarkError, parseBenchmarkSpec } from "../../../lib/benchmark/load-benchmark";
import { canonicalJson } from "../../../lib/formats/canonical-json";
import { offersBundleDownload } from "../../../lib/queries/entry-bundle";

const SPEC = "slug: tiny\ntitle: Tiny\nversion: 1\ncapabilities:\n  - id: api_chaining\n    label: API chaining\n    directory: capability_1_bi_apis\n";

describe("bundleDownload", () => {
  it("is on when absent, and the parsed spec carries no key (its content hash is unchanged)", () => {
    const spec = parseBenchmarkSpec(SPEC);
    expect(offersBundleDownload(spec)).toBe(true);
    expect(canonicalJson(spec)).not.toContain("bundleDownload");
  });

  it("is off with false, on with true", () => {
    expect(offersBundleDownload(parseBenchmarkSpec(`${SPEC}bundleDownload: false\n`))).toBe(false);
    expect(offersBundleDownload(parseBenchmarkSpec(`${SPEC}bundleDownload: true\n`))).toBe(true);
  });

  it("refuses any other value with the file, the key and what it expects", () => {
    for (const bad of ['"no"', "0", "off-ish", "[]"]) {
      let error: unknown;
      try {
        parseBenchmarkSpec(`${SPEC}bundleDownload: ${bad}\n`, "bench/benchmark.yaml");
      } catch (err) {
        error = err;
      }
      expect(error, bad).toBeInstanceOf(BenchmarkError);
      expect((error as Error).message, bad).toContain("bench/benchmark.yaml: bundleDownload: expected true or false");
    }
  });

  it("reads a stored spec from before the key as on, and a hand-edited one defensively", () => {
    expect(offersBundleDownload({})).toBe(true);
    expect(offersBundleDownload({ bundleDownload: false })).toBe(false);
    expect(offersBundleDownload({ bundleDownload: "false" as unknown as boolean })).toBe(true);
  });
});
