/**
 * What a benchmark's content hashes to, so a run's manifest can say exactly which ground truth
 * it was scored against: a benchmark edited under the same version shows as another hash.
 * `loadBenchmark` feeds it every file it reads (ground truth, input files for policies, an
 * evaluator's prompts, metrics, tool schemas and reference reports), so the CLI, the worker and
 * tests get the same hash from the same folder, whatever path loaded it.
 *
 * Parts, each a sha256: the ground-truth files (name and bytes), the other files read, the spec
 * (benchmark.yaml as parsed, canonical JSON) and the environment declaration (each
 * capability's `environment` and the retriever globs). `hash` covers all four.
 *
 * `keySalt` is derived from the same file hashes under another tag and is never published: it
 * salts the keys of exported judge verdicts (verdict-export.ts), so a key (a hash of a prompt
 * that holds a reference answer) cannot be tested against guessed answers by anyone who lacks
 * the ground truth.
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "../formats/canonical-json";
import { sha256 } from "../formats/sha256";
import type { BenchmarkSpec } from "./spec";

export interface BenchmarkContentParts {
  groundTruth: string;
  /** Files read besides the ground truth: `input/` (policies), an evaluator's prompts, metrics, schemas, reference reports. */
  files: string;
  spec: string;
  environment: string;
}

export interface BenchmarkContent {
  hash: string;
  parts: BenchmarkContentParts;
  /** Secret to whoever lacks the ground truth; never in a manifest or on a page. */
  keySalt: string;
}

/** Collects the files a load reads; `digest` hashes them with the spec. */
export class ContentHasher {
  private readonly files = new Map<string, string>();

  /** A file read, by its path inside the benchmark folder (`/`-separated). */
  note(rel: string, bytes: Uint8Array | string): void {
    this.files.set(rel.split("\\").join("/"), sha256(bytes));
  }

  digest(spec: BenchmarkSpec): BenchmarkContent {
    const listing = (pick: (rel: string) => boolean, tag: string) => {
      const h = createHash("sha256").update(`${tag}\n`);
      for (const rel of [...this.files.keys()].filter(pick).sort()) h.update(`${rel}\0${this.files.get(rel)}\n`);
      return h.digest("hex");
    };
    const isGroundTruth = (rel: string) => rel.startsWith("groundtruth/");
    const parts: BenchmarkContentParts = {
      groundTruth: listing(isGroundTruth, "groundtruth"),
      files: listing((rel) => !isGroundTruth(rel), "files"),
      spec: sha256(canonicalJson(spec)),
      environment: sha256(canonicalJson({ capabilities: spec.capabilities.map((c) => [c.id, c.environment ?? null]), retrieverTools: spec.retrieverTools })),
    };
    return {
      hash: sha256(`agentboard.benchmark-content/1\n${parts.groundTruth}\n${parts.files}\n${parts.spec}\n${parts.environment}`),
      parts,
      keySalt: listing(() => true, "agentboard.verdict-key-salt/1"),
    };
  }
}
