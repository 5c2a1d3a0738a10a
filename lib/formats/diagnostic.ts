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

/** Collects diagnostics for one file, filling in the file name. */
export class DiagnosticSink {
  readonly items: Diagnostic[] = [];
  constructor(readonly file: string) {}

  error(code: string, message: string, where: Where = {}): void {
    this.items.push({ severity: "error", code, file: this.file, ...where, message });
  }

  warn(code: string, message: string, where: Where = {}): void {
    this.items.push({ severity: "warning", code, file: this.file, ...where, message });
  }

  get errorCount(): number {
    let n = 0;
    for (const d of this.items) if (d.severity === "error") n++;
    return n;
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
