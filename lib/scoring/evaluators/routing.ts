/**
 * Which items an evaluator scores, and the `--only` filter by evaluator kind. Filtering
 * follows VSS: a single-turn item is kept when one of its methods survives, and a
 * conversation is kept whole when any turn matches (the other turns stay for their history
 * and are skipped by every evaluator).
 */
import { EVAL_KINDS, type EvalItem, type EvalKind } from "../../formats/eval-dataset";

export function isRoutedTo(item: EvalItem, methodId: string): boolean {
  return item.methods.includes(methodId);
}

export type OnlyOption = { ok: true; kinds: EvalKind[] | "all" } | { ok: false; error: string };

/** `all`, or a comma-separated list of kinds; `all` must stand alone. */
export function parseOnlyOption(text: string | undefined): OnlyOption {
  if (text === undefined) return { ok: true, kinds: "all" };
  const parts = text.split(",").map((p) => p.trim().toLowerCase());
  if (parts.some((p) => p === "")) return { ok: false, error: `--only: empty entry in "${text}"; expected "all" or a list such as qa,trajectory` };
  if (parts.includes("all")) return parts.length === 1 ? { ok: true, kinds: "all" } : { ok: false, error: `--only: "all" cannot be combined with other kinds (got "${text}")` };
  const unknown = parts.filter((p) => !(EVAL_KINDS as readonly string[]).includes(p));
  if (unknown.length) return { ok: false, error: `--only: unknown kind ${unknown.map((u) => `"${u}"`).join(", ")}; expected "all" or any of ${EVAL_KINDS.join(", ")}` };
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
