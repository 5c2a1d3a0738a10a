/** "about 4 min left": a time estimate, never more precise than minutes (five of them past an hour). */
export function formatRemaining(ms: number): string {
  const min = Math.ceil(ms / 60_000);
  if (min <= 1) return "less than a minute left";
  if (min < 60) return `about ${min} min left`;
  const rounded = Math.round(min / 5) * 5;
  const h = Math.floor(rounded / 60);
  const m = rounded % 60;
  return `about ${h} h${m ? ` ${m} min` : ""} left`;
}
