import { thClass } from "./styles";

/** Column header cells of a data table: one `<th scope="col">` per label. */
export function ColumnHeaders({ labels, className = "" }: { labels: readonly string[]; className?: string }) {
  return (
    <>
      {labels.map((label) => (
        <th key={label} scope="col" className={`${thClass} ${className}`}>
          {label}
        </th>
      ))}
    </>
  );
}
