import { PHASE_DEVELOPMENT_SERVER } from "next/constants.js";
import { securityHeaders } from "./scripts/server/security-headers.mjs";

/** @type {(phase: string) => import('next').NextConfig} */
const nextConfig = (phase) => ({
  reactStrictMode: true,
  poweredByHeader: false,
  // Native or optional-native drivers load from node_modules at run time, never bundled: pg
  // requires pg-native only when asked to (it is not installed) and pg-cloudflare only on Workers.
  serverExternalPackages: ["better-sqlite3", "pg", "pg-native", "pg-cloudflare"],
  // The test command's own build (scripts/test-app.ts) skips Next's type check: the command
  // type-checks the checkout once before it.
  typescript: { ignoreBuildErrors: process.env.AGENTBOARD_BUILD_TYPECHECK === "0" },
  // CSP, framing, nosniff and referrer policy on every response (scripts/server/security-headers.mjs).
  async headers() {
    return [{ source: "/:path*", headers: securityHeaders({ dev: phase === PHASE_DEVELOPMENT_SERVER }) }];
  },
});

export default nextConfig;
