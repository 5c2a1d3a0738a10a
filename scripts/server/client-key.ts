/**
 * Who a request is from, for per-client limits in front of Next: the connection's address, or
 * behind our own reverse proxy (AGENTBOARD_TRUST_PROXY=1) the address that proxy appended to
 * X-Forwarded-For, read as the sign-in limiter reads it (app/admin/forwarded-for.ts). IPv6
 * addresses count by /64.
 */
import type { IncomingMessage } from "node:http";
import { addressKey, clientFromForwardedFor, trustedHopsFromEnv } from "../../app/admin/forwarded-for";

export interface ClientKeyOptions {
  trustProxy: boolean;
  trustedHops: number;
}

export function clientKeyOptionsFromEnv(env: Record<string, string | undefined>): ClientKeyOptions {
  return { trustProxy: env.AGENTBOARD_TRUST_PROXY === "1", trustedHops: trustedHopsFromEnv(env.AGENTBOARD_TRUSTED_PROXY_HOPS) };
}

export function clientKeyOf(req: IncomingMessage, opts: ClientKeyOptions): string {
  const direct = addressKey(req.socket.remoteAddress ?? "") ?? "unknown";
  if (!opts.trustProxy) return direct;
  const forwarded = req.headers["x-forwarded-for"];
  return clientFromForwardedFor(Array.isArray(forwarded) ? forwarded.join(",") : forwarded, opts.trustedHops) ?? direct;
}
