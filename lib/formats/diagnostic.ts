import { unpinned } from "./unpinned";

/** One finding about a file: where it is (file, record, uuid, JSON path) and what was expected. */
export type Severity = "error" | "warning";

export interface Diagnostic {
  severity: Severity;
  /** Stable machine-readable code, e.g. `duplicate_uuid`. */
  code: string;
  /** Path inside the bundle (or benchmark), `/`-separated. */
  file: string;
  /** Index of the record in the file's top-level array. */
  record?: number;
  uuid?: string;
  /** JSON path inside the file, e.g. `$[3].output[0].sequence.tool_call[1].name`. */
  path?: string;
  message: string;
}

/** How many diagnostics a store keeps; the rest are only counted. */
export interface DiagnosticCaps {
  /** Kept per severity and code. */
  perCode: number;
  /** Kept in all. */
  total: number;
}

export const defaultDiagnosticCaps: Readonly<DiagnosticCaps> = Object.freeze({ perCode: 100, total: 1_000 });

/**
 * Diagnostics of a whole run, counted as they come (O(1) each) and kept up to the caps, so a
 * file of a million bad records costs a million counter increments, not a million objects.
 * Counts per code are exact; `omitted` says how many were counted but not kept.
 */
export class DiagnosticStore {
  readonly items: Diagnostic[] = [];
  errorCount = 0;
  warningCount = 0;
  /** Exact counts per code, by severity. */
  readonly errorCounts: Record<string, number> = Object.create(null) as Record<string, number>;
  readonly warningCounts: Record<string, number> = Object.create(null) as Record<string, number>;
  readonly caps: DiagnosticCaps;

  constructor(caps: Partial<DiagnosticCaps> = {}) {
    this.caps = { ...defaultDiagnosticCaps, ...caps };
  }

  add(d: Diagnostic): void {
    const counts = d.severity === "error" ? this.errorCounts : this.warningCounts;
    const n = (counts[d.code] = (counts[d.code] ?? 0) + 1);
    if (d.severity === "error") this.errorCount++;
    else this.warningCount++;
    // A kept diagnostic outlives its file: its strings must not keep the file's text alive.
    if (n <= this.caps.perCode && this.items.length < this.caps.total) this.items.push(ownStrings(d));
  }

  /** Adds each diagnostic in turn (never a spread: the list may be long). */
  addAll(ds: Iterable<Diagnostic>): void {
    for (const d of ds) this.add(d);
  }

  /**
   * Adds the diagnostics another store collected, as if each had been added here in turn:
   * the ones it kept, then the counts of the ones it only counted. Exact when that store had
   * the same caps and saw a run of diagnostics that comes next here (one file's): whatever
   * this store would keep of the run, that store kept too, and a dropped one changes only counts.
   */
  absorb(other: { items: readonly Diagnostic[]; errorCounts: Record<string, number>; warningCounts: Record<string, number> }): void {
    const kept: Record<Severity, Record<string, number>> = { error: Object.create(null) as Record<string, number>, warning: Object.create(null) as Record<string, number> };
    for (const d of other.items) {
      this.add(d);
      kept[d.severity][d.code] = (kept[d.severity][d.code] ?? 0) + 1;
    }
    for (const severity of ["error", "warning"] as const) {
      const counts = severity === "error" ? this.errorCounts : this.warningCounts;
      for (const [code, n] of Object.entries(severity === "error" ? other.errorCounts : other.warningCounts)) {
        const dropped = n - (kept[severity][code] ?? 0);
        if (dropped <= 0) continue;
        counts[code] = (counts[code] ?? 0) + dropped;
        if (severity === "error") this.errorCount += dropped;
        else this.warningCount += dropped;
      }
    }
  }

  /** Counted but not kept. */
  get omitted(): number {
    return this.errorCount + this.warningCount - this.items.length;
  }
}

function ownStrings(d: Diagnostic): Diagnostic {
  const out: Diagnostic = { ...d, message: unpinned(d.message) };
  if (d.uuid !== undefined) out.uuid = unpinned(d.uuid);
  if (d.path !== undefined) out.path = unpinned(d.path);
  return out;
}

/** Collects diagnostics for one file, filling in the file name; counts stay exact whatever the store keeps. */
export class DiagnosticSink {
  readonly store: DiagnosticStore;
  /** Errors and warnings reported through this sink (not the whole store's). */
  errorCount = 0;
  warningCount = 0;

  constructor(
    readonly file: string,
    store?: DiagnosticStore,
  ) {
    this.store = store ?? new DiagnosticStore();
  }

  /** The diagnostics the store kept (with a shared store, other files' too). */
  get items(): readonly Diagnostic[] {
    return this.store.items;
  }

  error(code: string, message: string, where: Where = {}): void {
    this.errorCount++;
    this.store.add({ severity: "error", code, file: this.file, ...where, message });
  }

  warn(code: string, message: string, where: Where = {}): void {
    this.warningCount++;
    this.store.add({ severity: "warning", code, file: this.file, ...where, message });
  }
}

export type Where = Pick<Diagnostic, "record" | "uuid" | "path">;

/** `file record 3 (uuid abc) at $[3].uuid: message` */
export function formatDiagnostic(d: Diagnostic): string {
  const parts = [d.file];
  if (d.record !== undefined) parts.push(`record ${d.record}`);
  if (d.uuid) parts.push(`(uuid ${d.uuid})`);
  if (d.path) parts.push(`at ${d.path}`);
  return `${parts.join(" ")}: ${d.message}`;
}

/** JSON path segment helper: `key` → `.key` or `["odd key"]`, index → `[i]`. */
export function childPath(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

export function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return value === "" ? "an empty string" : "a string";
  return `a ${typeof value}`;
}

/**
 * A submitted value quoted for a message, at most `max` characters of it: a 400 MB status or a
 * 70,000-character domain must not be copied into every diagnostic that names it.
 */
export function preview(value: unknown, max = 80): string {
  if (typeof value !== "string") {
    const s = typeof value === "number" || typeof value === "boolean" || value === null ? String(value) : describeType(value);
    return s.length > max ? `${s.slice(0, max)}…` : s;
  }
  if (value.length <= max) return JSON.stringify(value);
  return `${JSON.stringify(value.slice(0, max))}… (${value.length} characters)`;
}
