/**
 * A run's reproducibility manifest: everything that decides its numbers, so anyone holding the
 * public bundle, the benchmark and the exported verdicts can re-derive them (`agentboard verify`).
 * Shape only for now; the builder comes with issue 16.
 */
import type { ReplayMode } from "../replay/replay-port";

export interface RunManifest {
  schema: "agentboard.manifest/1";
  bundle: { sha256: string };
  /** What the ground truth, spec and environment declaration hash to: a benchmark edited under the same version shows here. */
  benchmark: { slug: string; version: string; contentHash: string };
  /** The ground-truth responses the run compared against (stored replay, fresh replay, or the files' own). */
  groundTruthReplay: { hash: string | null; source: string };
  agentboard: { version: string; commit: string | null };
  judge: { kind: string; model: string | null; endpoint: string; promptHashes: Record<string, string> };
  replay: { mode: ReplayMode };
  /** The bootstrap's seed. */
  seed: number;
  trials: number;
  /** A digest of every item's verdicts, scores and statuses, in a fixed order. */
  verdicts: { digest: string; items: number };
}
