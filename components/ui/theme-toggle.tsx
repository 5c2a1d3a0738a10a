"use client";
import { useEffect, useState } from "react";

/** Light/dark switch; the choice is saved, and the system preference is the default. */
export function ThemeToggle() {
  const [dark, setDark] = useState<boolean | null>(null);
  useEffect(() => setDark(document.documentElement.classList.contains("dark")), []);
  const toggle = () => {
    const next = !dark;
    document.documentElement.classList.toggle("dark", next);
    localStorage.setItem("agentboard-theme", next ? "dark" : "light");
    setDark(next);
  };
  return (
    <button
      type="button"
      onClick={toggle}
      aria-label={dark ? "Switch to light mode" : "Switch to dark mode"}
      aria-pressed={dark ?? false}
      className="rounded-md border border-slate-300 px-2 py-1 text-sm hover:bg-slate-100 focus-visible:outline focus-visible:outline-2 focus-visible:outline-sky-600 dark:border-slate-600 dark:hover:bg-slate-800"
    >
      {dark ? "☀ Light" : "☾ Dark"}
    </button>
  );
}
