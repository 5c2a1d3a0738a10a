/**
 * Loads a NAT config file as NAT's `yaml_load` does (nat/utils/io/yaml_tools.py): the whole
 * text has its variables expanded, is parsed (YAML 1.1, as PyYAML reads it), every string
 * value is expanded once more, `file://` values of mappings become the text of the file they
 * name (relative to that config's folder; prompt extensions only), and a `base:` file (relative
 * to that config's folder) is loaded the same way first, with this file deep-merged over it
 * (mappings merge key by key, anything else replaces). Each use of an unset variable without
 * a default is kept with its file, line and YAML path, so the caller can refuse the ones
 * evaluation reads; NAT reads them all as "".
 */
import { open, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { isMap, isPair, isScalar, isSeq, parse as parseYaml, parseDocument, type Node as YamlNode, type ScalarTag, type Tags } from "yaml";
import { describeType } from "./diagnostic";
import { expandNatVariables, lineOf, type ExpansionEnv } from "./nat-env-expand";

type Obj = Record<string, unknown>;
// Plain mappings only: YAML 1.1 timestamps parse to Dates, which are values, not sections.
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);

/** PyYAML's booleans: YAML 1.1's without the single letters (`y`, `n` stay strings, as keys too). */
const pyYamlBooleans = (tags: Tags): Tags =>
  tags.map((t) => (typeof t !== "object" || t.tag !== "tag:yaml.org,2002:bool" ? t : ({ ...t, test: t.identify?.(true) ? /^(?:[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)$/ : /^(?:[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)$/ } as ScalarTag)));
/** How PyYAML's safe_load reads a config: YAML 1.1, a repeated key's last value wins. */
const PYYAML = { version: "1.1", uniqueKeys: false, customTags: pyYamlBooleans } as const;

/** NAT's allow-list for `file://` references (no code files). */
export const FILE_REFERENCE_EXTENSIONS = [".txt", ".md", ".j2", ".jinja2", ".jinja", ".prompt", ".tpl", ".template"];
const FILE_PREFIX = "file://";
/** Bounds: a config, its prompt files and its chain of bases are small. */
export const MAX_CONFIG_BYTES = 4 * 1024 * 1024;
export const MAX_REFERENCED_FILE_BYTES = 1024 * 1024;
export const MAX_BASE_DEPTH = 16;

/** A use of an unset variable with no default, where it was written. */
export interface UnsetVariable {
  name: string;
  /** The file as displayed. */
  file: string;
  line: number | null;
  /** Its YAML path in the merged config, or null when it could not be placed. */
  path: string[] | null;
}

export type NatLoadResult = { ok: true; raw: Obj; unset: UnsetVariable[] } | { ok: false; errors: string[] };

export interface NatLoadOptions {
  /** The environment the variables come from (never read from the process here). */
  env: Readonly<Record<string, string | undefined>>;
  /** How files are named in messages (default: as given). */
  displayName?: (file: string) => string;
}

export async function loadNatConfig(file: string, opts: NatLoadOptions): Promise<NatLoadResult> {
  const env: ExpansionEnv = new Map(Object.entries(opts.env).filter((e): e is [string, string] => e[1] !== undefined));
  const show = opts.displayName ?? ((f: string) => f);
  try {
    const { config, unset } = await loadOne(path.resolve(file), [], env, show);
    return { ok: true, raw: config, unset };
  } catch (err) {
    if (err instanceof LoadError) return { ok: false, errors: [err.message] };
    throw err;
  }
}

class LoadError extends Error {}

async function loadOne(file: string, chain: string[], env: ExpansionEnv, show: (f: string) => string): Promise<{ config: Obj; unset: UnsetVariable[] }> {
  let real: string;
  try {
    real = await realpath(file);
  } catch (err) {
    throw new LoadError(`${show(file)}: cannot read: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  if (chain.includes(real)) throw new LoadError(`base: circular inheritance: ${[...chain, real].map(show).join(" → ")}`);
  if (chain.length >= MAX_BASE_DEPTH) throw new LoadError(`base: more than ${MAX_BASE_DEPTH} configs in the chain (${chain.map(show).join(" → ")} → …)`);
  const name = show(file);
  const text = await readBounded(real, MAX_CONFIG_BYTES, name);

  const expanded = expandNatVariables(text, env);
  if (!expanded.ok) throw new LoadError(`${name}:${lineOf(text, expanded.at)}: ${expanded.error}`);
  let parsed: unknown;
  try {
    parsed = parseYaml(expanded.text, { ...PYYAML, maxAliasCount: 1000 });
  } catch (err) {
    throw new LoadError(`${name}: invalid YAML${expanded.text === text ? "" : " after expanding variables"}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!isObj(parsed)) throw new LoadError(`${name}: expected a mapping of config sections, found ${describeType(parsed)}`);

  const unset: UnsetVariable[] = [];
  if (expanded.unset.length) {
    const locate = pathLocator(text);
    for (const u of expanded.unset) unset.push({ name: u.name, file: name, line: lineOf(text, u.start), path: locate(u.start) });
  }
  // NAT expands every string value again after parsing (values whose variables held ${…}).
  let config = expandValues(parsed, [], env, name, unset) as Obj;
  config = await resolveFileReferences(config, path.dirname(real), [], name);

  if (!("base" in config)) return { config, unset };
  const baseRef = config.base;
  if (typeof baseRef !== "string" || baseRef === "") throw new LoadError(`${name}: base: expected the path of the config to inherit from, found ${describeType(baseRef)}`);
  const inBase = unset.find((u) => u.path?.[0] === "base");
  if (inBase) throw new LoadError(`${name}:${inBase.line}: base: \${${inBase.name}} is not set and has no default`);
  const basePath = path.resolve(path.dirname(real), baseRef);
  if (!(await stat(basePath).then((s) => s.isFile()).catch(() => false))) throw new LoadError(`${name}: base: ${baseRef}: base configuration file not found (${show(basePath)})`);
  const loaded = await loadOne(basePath, [...chain, real], env, show);
  const merged = deepMerge(loaded.config, config);
  delete merged.base;
  // A value of the base that this file replaces is not read: neither are its variables.
  const live = loaded.unset.filter((u) => u.path === null || !overrides(config, u.path));
  return { config: merged, unset: [...live, ...unset.filter((u) => u.path?.[0] !== "base")] };
}

async function readBounded(file: string, max: number, name: string): Promise<string> {
  let handle;
  try {
    handle = await open(file, "r");
    const st = await handle.stat();
    if (!st.isFile()) throw new LoadError(`${name}: not a file`);
    if (st.size > max) throw new LoadError(`${name}: ${st.size} bytes; at most ${max} are read`);
    const buf = Buffer.alloc(st.size);
    const { bytesRead } = await handle.read(buf, 0, st.size, 0);
    return buf.subarray(0, bytesRead).toString("utf8");
  } catch (err) {
    if (err instanceof LoadError) throw err;
    throw new LoadError(`${name}: cannot read: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  } finally {
    await handle?.close();
  }
}

function expandValues(v: unknown, at: string[], env: ExpansionEnv, file: string, unset: UnsetVariable[]): unknown {
  if (Array.isArray(v)) return v.map((x, i) => expandValues(x, [...at, String(i)], env, file, unset));
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, expandValues(x, [...at, k], env, file, unset)]));
  // Backslashes too: the second pass reads \\ as one backslash again, as NAT's does.
  if (typeof v !== "string" || (!v.includes("$") && !v.includes("\\"))) return v;
  const r = expandNatVariables(v, env);
  if (!r.ok) throw new LoadError(`${file}: ${at.join(".")}: ${r.error}`);
  for (const u of r.unset) unset.push({ name: u.name, file, line: null, path: at });
  return r.text;
}

/** `file://` values of mappings (not of lists, as in NAT), relative to the config's folder. */
async function resolveFileReferences(v: Obj, dir: string, at: string[], file: string): Promise<Obj> {
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) {
    const here = [...at, k];
    if (isObj(x)) out[k] = await resolveFileReferences(x, dir, here, file);
    else if (typeof x === "string" && x.startsWith(FILE_PREFIX)) out[k] = await readReferencedFile(x, dir, `${file}: ${here.join(".")}`);
    else out[k] = x;
  }
  return out;
}

async function readReferencedFile(ref: string, dir: string, where: string): Promise<string> {
  const target = path.resolve(dir, ref.slice(FILE_PREFIX.length));
  // NAT checks the extension of the file a symlink points to.
  const real = await realpath(target).catch(() => target);
  const ext = path.extname(real).toLowerCase();
  if (!FILE_REFERENCE_EXTENSIONS.includes(ext)) throw new LoadError(`${where}: ${ref}: unsupported file extension "${ext}" (allowed: ${FILE_REFERENCE_EXTENSIONS.join(", ")})`);
  if (!(await stat(real).then((s) => s.isFile()).catch(() => false))) throw new LoadError(`${where}: ${ref}: referenced file not found (${real})`);
  return readBounded(real, MAX_REFERENCED_FILE_BYTES, `${where}: ${ref}`);
}

/** NAT's deep_merge: mappings merge key by key; any other value of `over` replaces. */
export function deepMerge(base: Obj, over: Obj): Obj {
  const out: Obj = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = isObj(out[k]) && isObj(v) ? deepMerge(out[k] as Obj, v) : v;
  return out;
}

/** Whether merging `over` onto a base replaces the base's value at `p`. */
function overrides(over: Obj, p: string[]): boolean {
  let node: unknown = over;
  for (let k = 0; k < p.length; k++) {
    if (!isObj(node) || !(p[k]! in node)) return false;
    node = node[p[k]!];
    if (k === p.length - 1 || !isObj(node)) return true;
  }
  return false;
}

/** Maps an offset of the unexpanded text to the YAML path of the value written there. */
function pathLocator(text: string): (offset: number) => string[] | null {
  let doc;
  try {
    doc = parseDocument(text, PYYAML);
    if (doc.errors.length) return () => null;
  } catch {
    return () => null;
  }
  const contents = doc.contents as YamlNode | null;
  return (offset) => (contents ? find(contents, offset, []) : null);
}

function find(node: YamlNode, offset: number, at: string[]): string[] | null {
  const range = node.range;
  if (range && (offset < range[0] || offset >= range[2])) return null;
  if (isMap(node)) {
    for (const item of node.items) {
      if (!isPair(item)) continue;
      const key = isScalar(item.key) ? String(item.key.value) : null;
      if (key === null) continue;
      const keyRange = (item.key as YamlNode).range;
      if (keyRange && offset >= keyRange[0] && offset < keyRange[2]) return [...at, key];
      if (item.value && typeof item.value === "object") {
        const hit = find(item.value as YamlNode, offset, [...at, key]);
        if (hit) return hit;
      }
    }
    return range ? at : null;
  }
  if (isSeq(node)) {
    for (let i = 0; i < node.items.length; i++) {
      const hit = find(node.items[i] as YamlNode, offset, [...at, String(i)]);
      if (hit) return hit;
    }
    return range ? at : null;
  }
  return at;
}
