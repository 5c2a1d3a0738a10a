/**
 * What /admin says after a redirect. The query string only ever carries a code; the text
 * shown is fixed here, so no link can put words in the maintainers' alert box.
 */
import { REVIEW_ACTIONS } from "@/lib/submissions/review";

export const ADMIN_ERRORS = {
  token: "That token is not right.",
  locked: "Too many failed attempts: wait a quarter of an hour and try again.",
  disabled: "Sign-in is disabled: set AGENTBOARD_ADMIN_TOKEN on the server.",
  session: "Your session has ended: sign in again.",
  "no-submission": "No submission was given.",
  "unknown-action": "That action is unknown.",
  transition: "That submission cannot make this move from its current state (it may have changed meanwhile): reload and try again.",
  changed: "That submission changed after you were asked to confirm, so nothing was done: check its new state and try again.",
} as const;

export type AdminErrorCode = keyof typeof ADMIN_ERRORS;

const UNKNOWN = "Something went wrong: try again.";

/** The fixed message for a code; unknown codes (including `__proto__`) get a generic one; none for absent. */
export function adminErrorMessage(code: string | undefined): string | null {
  if (!code) return null;
  return Object.hasOwn(ADMIN_ERRORS, code) ? ADMIN_ERRORS[code as AdminErrorCode] : UNKNOWN;
}

const ACTIONS = new Set<string>(REVIEW_ACTIONS);

/** "approve #12" for a well-formed done code, else null: never arbitrary text. */
export function adminDoneMessage(done: string | undefined): string | null {
  const m = /^([a-z]+) #(\d{1,15})$/.exec(done ?? "");
  return m && ACTIONS.has(m[1]!) ? `${m[1]} #${m[2]}` : null;
}
