/** A labelled select of a plain GET filter form (the view lives in the URL and works without JavaScript). */
import { controlClass } from "./styles";

export interface SelectOption {
  value: string;
  label: string;
}

export function SelectField({ id, name, label, value, options, className = "" }: { id: string; name: string; label: string; value: string; options: readonly SelectOption[]; className?: string }) {
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-xs font-medium text-slate-700 dark:text-slate-300">
        {label}
      </label>
      <select id={id} name={name} defaultValue={value} className={`${controlClass} ${className}`}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}
