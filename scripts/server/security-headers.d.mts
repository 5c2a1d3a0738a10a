export function contentSecurityPolicy(opts?: { dev?: boolean }): string;
export function securityHeaders(opts?: { dev?: boolean }): { key: string; value: string }[];
