/**
 * Security headers on every response: next.config.mjs sends them through Next (`next start`,
 * `next dev`), and the production server (serve.ts) sets them too, so responses that never
 * reach Next (response-cache hits, its own errors) carry them as well.
 *
 * Scripts may be inline ('unsafe-inline'): Next streams its page data in inline scripts and the
 * layout sets the theme before paint; everything else is same-origin only, no framing, no
 * plugins, forms post only to this site. Development adds what hot reload needs.
 */

/** @param {{ dev?: boolean }} [opts] @returns {string} */
export function contentSecurityPolicy(opts = {}) {
  const dev = opts.dev === true;
  return [
    "default-src 'self'",
    `script-src 'self' 'unsafe-inline'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${dev ? " ws: wss:" : ""}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** @param {{ dev?: boolean }} [opts] @returns {{ key: string, value: string }[]} */
export function securityHeaders(opts = {}) {
  return [
    { key: "Content-Security-Policy", value: contentSecurityPolicy(opts) },
    { key: "X-Frame-Options", value: "DENY" },
    { key: "X-Content-Type-Options", value: "nosniff" },
    { key: "Referrer-Policy", value: "same-origin" },
    { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=(), payment=(), usb=()" },
    { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
  ];
}
