// The headers every answer of the web server carries (next.config.ts headers(), fixed at build time),
// and HSTS, which depends on APP_URL at run time (proxy.ts).

/**
 * Next.js inlines its bootstrap scripts and styles: 'unsafe-inline' keeps it working without
 * per-request nonces (which would make every page dynamic). 'unsafe-eval' and ws: only for `next dev`
 * (React's dev tooling and hot reload).
 */
export function contentSecurityPolicy(dev: boolean): string {
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

export function securityHeaders(dev: boolean): { key: string; value: string }[] {
  return [
    { key: "Content-Security-Policy", value: contentSecurityPolicy(dev) },
    { key: "X-Frame-Options", value: "DENY" },
    { key: "X-Content-Type-Options", value: "nosniff" },
    { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  ];
}

/** Strict-Transport-Security when APP_URL is https (two years, subdomains not included: they may not be ours). */
export function strictTransportSecurity(appUrl: string | undefined): string | null {
  return appUrl?.toLowerCase().startsWith("https:") ? "max-age=63072000" : null;
}
