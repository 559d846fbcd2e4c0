// Next.js calls register() once as the web server starts.
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    // A bad value stops the server here, naming the variable, rather than at the first request that reads it.
    const { stopOnInvalidConfig } = await import("@/lib/config/config");
    stopOnInvalidConfig("web");
    // What Next.js and libraries print through console becomes the logger's lines, redacted.
    const { guardConsole } = await import("@/lib/logging/guard-console");
    guardConsole();
  }
}
