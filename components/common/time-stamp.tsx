import { formatDateTime } from "./format";

export function TimeStamp({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} className="tabular-nums">
      {formatDateTime(iso)}
    </time>
  );
}
