import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { ThemeToggle } from "@/components/ui/theme-toggle";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Agentboard", template: "%s · Agentboard" },
  description: "Leaderboards for agent benchmarks, scored by replaying every tool call and a waterfall of judges.",
};

// Applies the saved (or system) theme before first paint, so dark mode never flashes.
const themeScript = `try{var t=localStorage.getItem("agentboard-theme");if(t==="dark"||(!t&&matchMedia("(prefers-color-scheme: dark)").matches))document.documentElement.classList.add("dark")}catch(e){}`;

const nav = [
  { href: "/", label: "Leaderboard" },
  { href: "/compare", label: "Compare" },
  { href: "/queue", label: "Queue" },
  { href: "/changelog", label: "Changelog" },
  { href: "/submit", label: "Submit" },
  { href: "/about", label: "About" },
];

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en" suppressHydrationWarning>
      <head>
        <script dangerouslySetInnerHTML={{ __html: themeScript }} />
      </head>
      <body className="min-h-screen bg-white font-sans text-slate-900 antialiased dark:bg-slate-950 dark:text-slate-100">
        <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:rounded focus:bg-sky-700 focus:px-3 focus:py-2 focus:text-white">
          Skip to content
        </a>
        <header className="border-b border-slate-200 dark:border-slate-800">
          <nav aria-label="Main" className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-5 gap-y-2 px-4 py-3">
            <Link href="/" className="text-lg font-semibold tracking-tight">
              Agentboard
            </Link>
            <ul className="flex flex-wrap gap-x-4 gap-y-1 text-sm">
              {nav.map((n) => (
                <li key={n.href}>
                  <Link href={n.href} className="text-slate-700 hover:text-sky-700 hover:underline dark:text-slate-300 dark:hover:text-sky-400">
                    {n.label}
                  </Link>
                </li>
              ))}
            </ul>
            <div className="ml-auto">
              <ThemeToggle />
            </div>
          </nav>
        </header>
        <main id="main" className="mx-auto max-w-7xl px-4 py-6">
          {children}
        </main>
      </body>
    </html>
  );
}
