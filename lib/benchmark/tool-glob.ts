/** Tool-name globs: `*` matches any run of characters, everything else is literal. */
const cache = new Map<string, RegExp>();

export function globToRegExp(glob: string): RegExp {
  let re = cache.get(glob);
  if (!re) {
    const body = glob.split("*").map((s) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*");
    re = new RegExp(`^${body}$`);
    cache.set(glob, re);
  }
  return re;
}

export function matchesAny(name: string, globs: readonly string[]): boolean {
  for (const g of globs) if (globToRegExp(g).test(name)) return true;
  return false;
}
