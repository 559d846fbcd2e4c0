// Next.js calls register() once as the web server starts.
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { guardConsole } = await import("@/lib/logging/guard-console");
    guardConsole();
  }
}
