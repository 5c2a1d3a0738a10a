/**
 * Maps bundle paths to capability/domain files. Accepts an optional single top-level folder
 * (`output/`), capability folders named exactly or by their `capability_N_` prefix, and
 * ignores the sidecars real runs leave behind (`*_tools.json`, `run.log`). In an evaluator
 * capability's folder, files other than `<domain>.json` are report files its outputs may name.
 * A bundle of k trials holds `trial_1/ … trial_k/` at its top, each laid out as a bundle.
 */
import { readerOf } from "./outputs-readers/registry";
import type { Diagnostic } from "../formats/diagnostic";
import type { CapabilitySpec } from "../benchmark/spec";
import { defaultValidationLimits } from "./limits";

export interface DomainFileRef {
  capability: CapabilitySpec;
  domain: string;
  /** Path inside the bundle as given. */
  path: string;
  /** Which trial (1-based); a plain bundle's files are trial 1's. */
  trial: number;
}

export interface BundleLayout {
  domainFiles: DomainFileRef[];
  /** Other files in evaluator capability folders: report files, when an output names them. */
  attachments: string[];
  /** `metadata.json` or `submission.yaml` at the bundle root. */
  metadataPath?: string;
  /** k for a bundle of trials (`trial_1/ … trial_k/`), 1 for a plain bundle. */
  trials: number;
  /** Each trial's folder as a path prefix (`trial_2/`, after any wrapper); empty for a plain bundle. */
  trialDirs: string[];
  diagnostics: Diagnostic[];
}

const JUNK = /(^|\/)(__MACOSX\/|\.DS_Store$|Thumbs\.db$)/;
const SIDE_CAR = /(_tools\.json|^run\.log|\/run\.log)$/;
/** A trial folder: `trial_` and a number (written from 1, without leading zeros, to count as one). */
const TRIAL_DIR = /^trial_(\d+)$/;
const isMetadata = (name: string) => name === "metadata.json" || name === "submission.yaml" || name === "submission.yml";

/**
 * A bundle is one trial's capability folders, or `trial_1/ … trial_k/` each holding them, with
 * the metadata at the top once (inside a trial it is ignored, with a warning). Trial folders
 * must be numbered 1..k without gaps, at most `maxTrials`, and nothing else may sit beside them.
 * `dirs` are the bundle's folders: a trial folder among them counts even with no file in it
 * (it is then `empty_trial`, not a trial fewer).
 */
export function mapLayout(paths: readonly string[], capabilities: readonly CapabilitySpec[], opts: { maxTrials?: number; dirs?: readonly string[] } = {}): BundleLayout {
  const maxTrials = opts.maxTrials ?? defaultValidationLimits.maxTrials;
  const kept = paths.filter((p) => !JUNK.test(p));
  const prefix = commonWrapper(kept, capabilities);
  const rels = kept.map((full) => ({ full, rel: full.slice(prefix.length) }));
  const tops = new Set(rels.filter((r) => r.rel.includes("/")).map((r) => r.rel.split("/")[0]!));
  for (const dir of opts.dirs ?? []) {
    if (!dir.startsWith(prefix) || JUNK.test(`${dir}/`)) continue;
    const top = dir.slice(prefix.length).split("/")[0]!;
    if (TRIAL_DIR.test(top)) tops.add(top);
  }
  if (![...tops].some((t) => TRIAL_DIR.test(t))) {
    const one = mapTrial(rels, capabilities, { prefix, trial: 1, inTrial: false });
    return { ...one, trials: 1, trialDirs: [] };
  }

  const diagnostics: Diagnostic[] = [];
  const numbered = new Map<number, string>();
  for (const top of [...tops].sort()) {
    const m = TRIAL_DIR.exec(top);
    if (!m) {
      const message = matchCapability(top, capabilities)
        ? "capability folder beside trial folders: in a bundle of trials every capability folder goes inside trial_1/ … trial_k/"
        : "folder beside trial folders: a bundle of trials holds only trial_1/ … trial_k/ and its metadata at the top";
      diagnostics.push({ severity: "error", code: "mixed_trial_layout", file: prefix + top, message });
      continue;
    }
    const n = Number(m[1]);
    if (n < 1 || String(n) !== m[1]) {
      diagnostics.push({ severity: "error", code: "bad_trial_folder", file: prefix + top, message: "expected trial_1, trial_2, …: trials are numbered from 1, without leading zeros" });
      continue;
    }
    numbered.set(n, top);
  }
  // Folders beyond the limit are not read; gaps are looked for among the rest only (a folder
  // named trial_9999999 is one too many, not millions of gaps).
  const beyond = [...numbered.keys()].filter((t) => t > maxTrials).sort((a, b) => a - b);
  const trials = Math.max(0, ...[...numbered.keys()].filter((t) => t <= maxTrials));
  const gaps = Array.from({ length: trials }, (_, i) => i + 1).filter((t) => !numbered.has(t));
  if (gaps.length > 0) {
    const shown = gaps.slice(0, 10).map((t) => `trial_${t}`).join(", ");
    diagnostics.push({
      severity: "error",
      code: "trial_gap",
      file: `${prefix}trial_${gaps[0]}`,
      message: `trial folders must be numbered 1 to ${trials} without gaps: ${shown}${gaps.length > 10 ? `, … (${gaps.length} in all)` : ""} ${gaps.length === 1 ? "is" : "are"} missing`,
    });
  }
  if (beyond.length > 0) {
    diagnostics.push({ severity: "error", code: "too_many_trials", file: `${prefix}${numbered.get(beyond[0]!)}`, message: `trials are numbered up to ${maxTrials} at most (limits.maxTrials): ${beyond.length === 1 ? "this folder is" : `this folder and ${beyond.length - 1} more are`} not read` });
  }
  const domainFiles: DomainFileRef[] = [];
  const attachments: string[] = [];
  let metadataPath: string | undefined;
  for (const { full, rel } of rels) {
    if (rel.includes("/")) continue;
    if (isMetadata(rel)) metadataPath = full;
    else if (!SIDE_CAR.test(rel) && !rel.endsWith(".log")) diagnostics.push({ severity: "warning", code: "ignored_file", file: full, message: "file at the bundle root is not part of the format; ignored" });
  }
  // Trial by trial, each trial's files in path order (mapTrial sorts them).
  for (let t = 1; t <= trials; t++) {
    const dir = numbered.get(t);
    if (!dir) continue;
    const inside = rels.filter((r) => r.rel.startsWith(`${dir}/`)).map((r) => ({ full: r.full, rel: r.rel.slice(dir.length + 1) }));
    const one = mapTrial(inside, capabilities, { prefix: `${prefix}${dir}/`, trial: t, inTrial: true });
    domainFiles.push(...one.domainFiles);
    attachments.push(...one.attachments);
    diagnostics.push(...one.diagnostics);
    if (one.domainFiles.length === 0) diagnostics.push({ severity: "error", code: "empty_trial", file: `${prefix}${dir}`, message: "trial holds no prediction files; expected <capability_dir>/<domain>.json inside it, as in every other trial" });
  }
  const trialDirs = Array.from({ length: trials }, (_, i) => `${prefix}trial_${i + 1}/`);
  return { domainFiles, attachments, ...(metadataPath ? { metadataPath } : {}), trials, trialDirs, diagnostics };
}

/** One trial's files (a plain bundle's, or inside `trial_n/`), by their path relative to it. */
function mapTrial(files: readonly { full: string; rel: string }[], capabilities: readonly CapabilitySpec[], at: { prefix: string; trial: number; inTrial: boolean }): Omit<BundleLayout, "trials" | "trialDirs"> {
  const { prefix, trial } = at;
  const diagnostics: Diagnostic[] = [];
  const domainFiles: DomainFileRef[] = [];
  const attachments: string[] = [];
  const unknownDirs = new Set<string>();
  const aliasWarned = new Set<string>();
  let metadataPath: string | undefined;

  for (const { full, rel } of files) {
    const parts = rel.split("/");
    const name = parts[parts.length - 1]!;
    if (SIDE_CAR.test(rel) || name.endsWith(".log")) continue;
    if (parts.length === 1) {
      if (isMetadata(name) && at.inTrial) diagnostics.push({ severity: "warning", code: "trial_metadata", file: full, message: "metadata belongs at the bundle's top, once for all trials; this file is ignored" });
      else if (isMetadata(name)) metadataPath = full;
      else diagnostics.push({ severity: "warning", code: "ignored_file", file: full, message: `file at the ${at.inTrial ? "trial's" : "bundle"} root is not part of the format; ignored` });
      continue;
    }
    const dir = parts[0]!;
    const capability = matchCapability(dir, capabilities);
    if (!capability) {
      if (!unknownDirs.has(dir)) {
        unknownDirs.add(dir);
        diagnostics.push({
          severity: "error",
          code: "unknown_capability",
          file: prefix + dir,
          message: `folder is not a capability of this benchmark; expected one of ${capabilities.map((c) => c.directory).join(", ")}${at.inTrial ? "" : " (or trial_1/ … trial_k/ for a bundle of trials)"}`,
        });
      }
      continue;
    }
    if (dir !== capability.directory && !aliasWarned.has(dir)) {
      aliasWarned.add(dir);
      diagnostics.push({ severity: "warning", code: "capability_dir_alias", file: prefix + dir, message: `read as ${capability.directory} (same capability_N_ prefix)` });
    }
    if (parts.length !== 2 || !name.endsWith(".json")) {
      // An evaluator capability's other files are the reports its outputs name (report_path).
      if (readerOf(capability.scorer).outputsNameFiles) {
        attachments.push(full);
        continue;
      }
      diagnostics.push({ severity: "warning", code: "ignored_file", file: full, message: "expected <capability_dir>/<domain>.json; ignored" });
      continue;
    }
    domainFiles.push({ capability, domain: name.slice(0, -".json".length), path: full, trial });
  }
  domainFiles.sort((a, b) => (a.path < b.path ? -1 : 1));
  return { domainFiles, attachments, ...(metadataPath ? { metadataPath } : {}), diagnostics };
}

/** A single top-level folder that is neither a capability folder nor a trial folder is a wrapper to strip. */
function commonWrapper(paths: readonly string[], capabilities: readonly CapabilitySpec[]): string {
  const tops = new Set(paths.map((p) => (p.includes("/") ? p.split("/")[0]! : "")));
  if (tops.size !== 1) return "";
  const [top] = [...tops];
  if (!top || matchCapability(top, capabilities) || TRIAL_DIR.test(top)) return "";
  return `${top}/`;
}

export function matchCapability(dir: string, capabilities: readonly CapabilitySpec[]): CapabilitySpec | undefined {
  const exact = capabilities.find((c) => c.directory === dir);
  if (exact) return exact;
  const m = /^(capability_\d+_)/.exec(dir);
  if (!m) return undefined;
  const byPrefix = capabilities.filter((c) => c.directory.startsWith(m[1]!));
  return byPrefix.length === 1 ? byPrefix[0] : undefined;
}
