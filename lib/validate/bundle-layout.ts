/**
 * Maps bundle paths to capability/domain files. Accepts an optional single top-level folder
 * (`output/`), capability folders named exactly or by their `capability_N_` prefix, and
 * ignores the sidecars real runs leave behind (`*_tools.json`, `run.log`). In an evaluator
 * capability's folder, files other than `<domain>.json` are report files its outputs may name.
 */
import { scorerOf } from "../scoring/capability-scorers/registry";
import type { Diagnostic } from "../formats/diagnostic";
import type { CapabilitySpec } from "../benchmark/spec";

export interface DomainFileRef {
  capability: CapabilitySpec;
  domain: string;
  /** Path inside the bundle as given. */
  path: string;
}

export interface BundleLayout {
  domainFiles: DomainFileRef[];
  /** Other files in evaluator capability folders: report files, when an output names them. */
  attachments: string[];
  /** `metadata.json` or `submission.yaml` at the bundle root. */
  metadataPath?: string;
  diagnostics: Diagnostic[];
}

const JUNK = /(^|\/)(__MACOSX\/|\.DS_Store$|Thumbs\.db$)/;
const SIDE_CAR = /(_tools\.json|^run\.log|\/run\.log)$/;

export function mapLayout(paths: readonly string[], capabilities: readonly CapabilitySpec[]): BundleLayout {
  const diagnostics: Diagnostic[] = [];
  const kept = paths.filter((p) => !JUNK.test(p));
  const prefix = commonWrapper(kept, capabilities);
  const domainFiles: DomainFileRef[] = [];
  const attachments: string[] = [];
  const unknownDirs = new Set<string>();
  const aliasWarned = new Set<string>();
  let metadataPath: string | undefined;

  for (const full of kept) {
    const rel = full.slice(prefix.length);
    const parts = rel.split("/");
    const name = parts[parts.length - 1]!;
    if (SIDE_CAR.test(rel) || name.endsWith(".log")) continue;
    if (parts.length === 1) {
      if (name === "metadata.json" || name === "submission.yaml" || name === "submission.yml") metadataPath = full;
      else diagnostics.push({ severity: "warning", code: "ignored_file", file: full, message: "file at the bundle root is not part of the format; ignored" });
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
          message: `folder is not a capability of this benchmark; expected one of ${capabilities.map((c) => c.directory).join(", ")}`,
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
      if (scorerOf(capability.scorer).outputsNameFiles) {
        attachments.push(full);
        continue;
      }
      diagnostics.push({ severity: "warning", code: "ignored_file", file: full, message: "expected <capability_dir>/<domain>.json; ignored" });
      continue;
    }
    domainFiles.push({ capability, domain: name.slice(0, -".json".length), path: full });
  }
  domainFiles.sort((a, b) => (a.path < b.path ? -1 : 1));
  return { domainFiles, attachments, ...(metadataPath ? { metadataPath } : {}), diagnostics };
}

/** A single top-level folder that is not itself a capability folder is a wrapper to strip. */
function commonWrapper(paths: readonly string[], capabilities: readonly CapabilitySpec[]): string {
  const tops = new Set(paths.map((p) => (p.includes("/") ? p.split("/")[0]! : "")));
  if (tops.size !== 1) return "";
  const [top] = [...tops];
  if (!top || matchCapability(top, capabilities)) return "";
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
