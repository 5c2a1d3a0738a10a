/** Where /admin asks a maintainer to confirm an action (needsConfirmation in lib/submissions/review.ts). */
export function confirmHref(action: string, id: number): string {
  return `/admin?confirm=${encodeURIComponent(action)}&id=${id}#confirm`;
}
