import { PHASE_DEVELOPMENT_SERVER } from "next/constants.js";
import { securityHeaders } from "./scripts/server/security-headers.mjs";

/** @type {(phase: string) => import('next').NextConfig} */
const nextConfig = (phase) => ({
  reactStrictMode: true,
  poweredByHeader: false,
  serverExternalPackages: ["better-sqlite3"],
  // CSP, framing, nosniff and referrer policy on every response (scripts/server/security-headers.mjs).
  async headers() {
    return [{ source: "/:path*", headers: securityHeaders({ dev: phase === PHASE_DEVELOPMENT_SERVER }) }];
  },
});

export default nextConfig;
