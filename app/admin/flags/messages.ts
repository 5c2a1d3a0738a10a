/**
 * What /admin/flags says after a clearing was refused. The query string only carries a code;
 * the words are fixed here, so no link can put text in the maintainers' alert box.
 */
export const CLEAR_FLAG_ERRORS = {
  reason: "Clearing a flag needs a reason.",
  changed: "That flag is no longer raised on the entry's current run (it was cleared, or the entry was scored again): look at its flags again.",
  "no-submission": "No submission was given.",
} as const;

export type ClearFlagErrorCode = keyof typeof CLEAR_FLAG_ERRORS;

/** The fixed message for a code; an unknown code gets a generic one, none for absent. */
export function clearFlagMessage(code: string | undefined): string | null {
  if (!code) return null;
  return Object.hasOwn(CLEAR_FLAG_ERRORS, code) ? CLEAR_FLAG_ERRORS[code as ClearFlagErrorCode] : "Something went wrong: try again.";
}
