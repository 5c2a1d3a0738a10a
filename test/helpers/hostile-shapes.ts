/**
 * The small bundles that held the worker (issue 26, item 5), written at any scale: the bench
 * (scripts/bench-hostile.ts) writes them as filed, the CLI tests write small ones. Every file
 * holds the same `[{},{},…]`, deflated once, so even the full-size ZIPs cost a moment to write.
 */
import { deflateOnce, writeZip, type ZipEntrySpec } from "./zip-writer";

/** `[{},{},…]` with `records` empty records. */
export function emptyRecords(records: number): string {
  return `[${Array(records).fill("{}").join(",")}]`;
}

export interface TrialsOfEmptyRecords {
  trials: number;
  /** Capability folders, each holding one file per domain. */
  capabilities: readonly string[];
  domains: readonly string[];
  records: number;
}

/**
 * `trial_1/ … trial_k/`, each with every capability × domain file of `records` empty records:
 * as filed, 32 trials × 12 files × 99,999 `{}` (a ~186 KB ZIP, 38.4 M errors).
 */
export function writeTrialsOfEmptyRecords(file: string, shape: TrialsOfEmptyRecords): Buffer {
  const deflated = deflateOnce(Buffer.from(emptyRecords(shape.records)));
  const entries: ZipEntrySpec[] = [];
  for (let t = 1; t <= shape.trials; t++) {
    for (const cap of shape.capabilities) for (const domain of shape.domains) entries.push({ name: `trial_${t}/${cap}/${domain}.json`, deflated });
  }
  return writeZip(file, entries);
}

export interface UnknownDomainFiles {
  /** Capability folders the files are spread over, in turn. */
  capabilities: readonly string[];
  files: number;
  records: number;
  /** Extra entries, e.g. an unknown-domain file of malformed JSON. */
  extra?: readonly ZipEntrySpec[];
}

/**
 * Files of domains the benchmark does not have (`unknown_<i>.json`), each of `records` empty
 * records: as filed, 850 files of 99,999 `{}` (a ~396 KB ZIP).
 */
export function writeUnknownDomainFiles(file: string, shape: UnknownDomainFiles): Buffer {
  const deflated = deflateOnce(Buffer.from(emptyRecords(shape.records)));
  const entries: ZipEntrySpec[] = Array.from({ length: shape.files }, (_, i) => ({ name: `${shape.capabilities[i % shape.capabilities.length]}/unknown_${i}.json`, deflated }));
  return writeZip(file, [...entries, ...(shape.extra ?? [])]);
}
