/** The validation report: JSON for machines (and the submission issue), markdown for people. */
import type { Diagnostic, DiagnosticStore } from "../formats/diagnostic";

export interface DomainCoverage {
  expected: number;
  predicted: number;
  missing: number;
  missingUuids: string[];
}

export interface CapabilityCoverage {
  directory: string;
  label: string;
  submitted: boolean;
  expected: number;
  predicted: number;
  missing: number;
  domains: Record<string, DomainCoverage>;
}

/** A report's diagnostics: what is listed, what is only counted. */
export interface DiagnosticLists {
  /** Errors in file order (the one saying validation stopped first, when it did); at most `errorLimit` and the store's caps are listed. */
  errors: Diagnostic[];
  /** Errors counted but not listed: `summary.errors - errors.length`. */
  errorsOmitted: number;
  /** Exact count of errors per code. */
  errorCounts: Record<string, number>;
  /** The first few warnings of each code, and the count of each code. */
  warnings: Diagnostic[];
  /** Warnings counted but not listed. */
  warningsOmitted: number;
  warningCounts: Record<string, number>;
}

export interface ValidationReport extends DiagnosticLists {
  schema: "agentboard.validation/1";
  valid: boolean;
  bundle: { location: string; kind: "zip" | "folder" | "unknown"; sha256: string | null; files: number };
  benchmark: { slug: string; version: string };
  /** `dialogues` counts every trial's; `trials` is k for a bundle of `trial_1/ … trial_k/`, 1 for a plain bundle. */
  summary: { errors: number; warnings: number; records: number; dialogues: number; trials: number; submittedCapabilities: string[] };
  coverage: Record<string, CapabilityCoverage>;
  metadata: Record<string, unknown> | null;
  /**
   * Present when validation stopped before reading every file (a budget of work-budget.ts was
   * spent): why, and how many files were not read. The counts above are then a lower bound.
   */
  stopped?: string;
}

const WARNINGS_PER_CODE = 5;

/**
 * What the report lists of a store's diagnostics; counts are the store's, exact. `first` (the
 * error saying validation stopped) is listed first whatever the caps kept: a reader shown only
 * the first few errors must still learn that the counts are a lower bound.
 */
export function summariseDiagnostics(store: DiagnosticStore, errorLimit: number, first?: Diagnostic): DiagnosticLists & { errorCount: number; warningCount: number } {
  const errors: Diagnostic[] = first && errorLimit > 0 ? [first] : [];
  const warnings: Diagnostic[] = [];
  const shown: Record<string, number> = {};
  for (const d of store.items) {
    if (d.severity === "error") {
      if (first && d.code === first.code) continue;
      if (errors.length < errorLimit) errors.push(d);
      continue;
    }
    const n = (shown[d.code] = (shown[d.code] ?? 0) + 1);
    if (n <= WARNINGS_PER_CODE) warnings.push(d);
  }
  return {
    errors,
    errorsOmitted: store.errorCount - errors.length,
    errorCount: store.errorCount,
    errorCounts: { ...store.errorCounts },
    warnings,
    warningsOmitted: store.warningCount - warnings.length,
    warningCounts: { ...store.warningCounts },
    warningCount: store.warningCount,
  };
}

/** The lists a report carries, from the summary (its totals go into the report's `summary`). */
export function diagnosticLists({ errors, errorsOmitted, errorCounts, warnings, warningsOmitted, warningCounts }: DiagnosticLists): DiagnosticLists {
  return { errors, errorsOmitted, errorCounts, warnings, warningsOmitted, warningCounts };
}

export interface MarkdownOptions {
  /** How many errors to print before "… and N more". */
  maxErrors?: number;
  maxWarnings?: number;
}

/** Markdown for a terminal or a GitHub comment: verdict, errors first, then warnings, then coverage. */
export function renderReportMarkdown(r: ValidationReport, opts: MarkdownOptions = {}): string {
  const maxErrors = opts.maxErrors ?? 50;
  const maxWarnings = opts.maxWarnings ?? 20;
  const out: string[] = [];
  out.push(`## Validation: ${r.valid ? "✅ valid" : "❌ invalid"}`);
  out.push("");
  out.push(
    `Benchmark **${md(r.benchmark.slug)}** v${md(r.benchmark.version)} · bundle \`${r.bundle.sha256 ? r.bundle.sha256.slice(0, 12) : "n/a"}\` (${r.bundle.kind}, ${r.bundle.files} files) · ` +
      `${r.summary.trials > 1 ? `${r.summary.trials} trials · ` : ""}${r.summary.dialogues} dialogues read · ${r.summary.errors} error(s), ${r.summary.warnings} warning(s)`,
  );
  out.push(...mdDiagnosticSections(r, maxErrors, maxWarnings));
  const caps = Object.entries(r.coverage);
  if (caps.length) {
    out.push("", r.summary.trials > 1 ? "### Coverage (trial 1; every trial covers the same items)" : "### Coverage", "", "| Capability | Submitted | Predicted | Expected | Missing |", "|---|---|---:|---:|---:|");
    for (const [id, c] of caps) out.push(`| ${md(c.label)} (\`${id}\`) | ${c.submitted ? "yes" : "no"} | ${c.predicted} | ${c.expected} | ${c.missing} |`);
    const gaps: string[] = [];
    for (const [id, c] of caps) {
      if (!c.submitted) continue;
      for (const [domain, d] of Object.entries(c.domains)) {
        if (d.missing > 0) gaps.push(`${id}/${domain}: ${d.missing} missing (${d.missingUuids.slice(0, 3).join(", ")}${d.missing > 3 ? ", …" : ""})`);
      }
    }
    if (gaps.length) {
      out.push("", "Missing predictions count as 0 (not an error):", "");
      for (const g of gaps.slice(0, 20)) out.push(`- ${md(g)}`);
      if (gaps.length > 20) out.push(`- … and ${gaps.length - 20} more domain(s) with gaps`);
    }
  }
  return out.join("\n") + "\n";
}

/**
 * The errors and warnings sections of a report (with a benchmark or without): each listed up to
 * its maximum, the rest counted, and where validation stopped, when it did.
 */
export function mdDiagnosticSections(r: DiagnosticLists & { summary: { errors: number; warnings: number }; stopped?: string }, maxErrors: number, maxWarnings: number): string[] {
  const out: string[] = [];
  if (r.summary.errors > 0) {
    out.push("", `### Errors (${r.summary.errors}${r.stopped ? " found before validation stopped" : ""})`, "");
    for (const d of r.errors.slice(0, maxErrors)) out.push(mdDiagnostic(d));
    const rest = r.summary.errors - Math.min(maxErrors, r.errors.length);
    // Always said, whether or not its diagnostic made the list: the counts are a lower bound.
    const stopped = r.stopped ? `; ${md(r.stopped)}` : "";
    if (rest > 0) out.push(`- … and ${rest} more error(s)${stopped}`);
    else if (r.stopped) out.push(`- ${md(r.stopped)}`);
  }
  if (r.summary.warnings > 0) {
    out.push("", `### Warnings (${r.summary.warnings})`, "");
    const codes = Object.entries(r.warningCounts).sort((a, b) => b[1] - a[1]);
    out.push(codes.map(([c, n]) => `\`${c}\` ×${n}`).join(" · "), "");
    for (const d of r.warnings.slice(0, maxWarnings)) out.push(mdDiagnostic(d));
    const shown = Math.min(maxWarnings, r.warnings.length);
    if (r.summary.warnings > shown) out.push(`- … and ${r.summary.warnings - shown} more warning(s)`);
  }
  return out;
}

/** `- `code` `file` record 3 (uuid `abc`) at `$[3].uuid`: message` */
export function mdDiagnostic(d: Diagnostic): string {
  const where = [code(d.file)];
  if (d.record !== undefined) where.push(`record ${d.record}`);
  if (d.uuid) where.push(`(uuid ${code(d.uuid)})`);
  if (d.path) where.push(`at ${code(d.path)}`);
  return `- \`${d.code}\` ${where.join(" ")}: ${md(d.message)}`;
}

/** A code span that user text cannot break out of. */
function code(text: string): string {
  return `\`${text.replace(/`/g, "'").replace(/\r?\n/g, " ")}\``;
}

/** Neutralises markdown and HTML in user-controlled text. */
export function md(text: string): string {
  return text.replace(/[\\`*{}[\]<>|]/g, (c) => `\\${c}`).replace(/\r?\n/g, " ");
}
