// One object per process, whichever copy of a module asks. Next.js bundles route handlers, server
// actions and pages separately, each with its own copy of the modules it uses, so a module-level
// variable would give each bundle its own cache, limiter or pool; these live on globalThis instead,
// in one registry, under a plain name.
const REGISTRY = Symbol.for("webhook-inbox.process-singletons");

const registry = ((globalThis as { [REGISTRY]?: Map<string, unknown> })[REGISTRY] ??= new Map<string, unknown>());

/** The process's one `key`, made by `create` the first time any bundle asks. */
export function processSingleton<T>(key: string, create: () => T): T {
  if (!registry.has(key)) registry.set(key, create());
  return registry.get(key) as T;
}
