/** Where /admin asks a maintainer to confirm an action that takes an entry away (reject, withdraw). */
export function confirmHref(action: string, id: number): string {
  return `/admin?confirm=${encodeURIComponent(action)}&id=${id}#confirm`;
}
