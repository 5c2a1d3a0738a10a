/**
 * Which items an evaluator scores, and the `--only` filter by evaluator kind. Filtering
 * follows VSS: a single-turn item is kept when one of its methods survives, and a
 * conversation is kept whole when any turn matches (the other turns stay for their history
 * and are skipped by every evaluator).
 */
import { EVAL_KINDS, type EvalItem, type EvalKind } from "../formats/eval-dataset";

export function isRoutedTo(item: EvalItem, methodId: string): boolean {
  return item.methods.includes(methodId);
}

export type OnlyOption = { ok: true; kinds: EvalKind[] | "all" } | { ok: false; error: string };

/**
 * VSS's `DATASET_FILTER` (and `--only`, the same as a flag): `all` (the default), or a
 * comma-separated list of qa, trajectory and report, case-insensitive, blanks ignored; `all`
 * cannot be combined with anything. The values are `evaluation_method` ids.
 */
export function parseOnlyOption(text: string | undefined, source = "--only"): OnlyOption {
  if (text === undefined) return { ok: true, kinds: "all" };
  const parts = text.trim().toLowerCase().split(",").map((p) => p.trim()).filter((p) => p !== "");
  if (parts.length === 0) return { ok: true, kinds: "all" };
  const unknown = parts.filter((p) => p !== "all" && !(EVAL_KINDS as readonly string[]).includes(p));
  if (unknown.length) return { ok: false, error: `${source}: invalid value ${unknown.map((u) => `"${u}"`).join(", ")}; must be one of all, ${EVAL_KINDS.join(", ")}` };
  if (parts.includes("all")) return parts.length === 1 ? { ok: true, kinds: "all" } : { ok: false, error: `${source}: "all" cannot be combined with other values (got "${text}")` };
  return { ok: true, kinds: [...new Set(parts)] as EvalKind[] };
}

/**
 * Narrows every item's methods to `allowed` and drops single-turn items left with none;
 * a conversation stays whole if any of its turns keeps a method.
 */
export function filterItemsByMethods(items: readonly EvalItem[], allowed: ReadonlySet<string>): EvalItem[] {
  const keepConversation = new Set<string>();
  for (const it of items) if (it.conversation && it.methods.some((m) => allowed.has(m))) keepConversation.add(it.conversation.id);
  const out: EvalItem[] = [];
  for (const it of items) {
    const methods = it.methods.filter((m) => allowed.has(m));
    if (it.conversation ? keepConversation.has(it.conversation.id) : methods.length > 0) out.push({ ...it, methods });
  }
  return out;
}

/** Methods that items name but no evaluator answers to, with how many items name each. */
export function unroutedMethods(items: readonly EvalItem[], known: ReadonlySet<string>): Map<string, number> {
  const out = new Map<string, number>();
  for (const it of items) for (const m of it.methods) if (!known.has(m)) out.set(m, (out.get(m) ?? 0) + 1);
  return out;
}
