// Where sign-in sends a person back to: the dashboard page they asked for while signed out (a deep
// link, the link in an alert mail). Only a path of this site is followed — never another origin,
// a protocol-relative `//host`, or a backslash that browsers read as one — so the sign-in link cannot
// be made to redirect anywhere else (an open redirect).

/** The request header proxy.ts sets on page requests: the path and query asked for. */
export const REQUESTED_PATH_HEADER = "x-inbox-requested-path";

const BASE = "http://inbox.invalid";
const NOT_RETURNED_TO = new Set(["/", "/login", "/signup", "/overview"]);

/** `value` as a same-origin path + query to return to, or null when it is not one (or not worth returning to). */
export function safeReturnPath(value: unknown): string | null {
  if (typeof value !== "string" || value.length > 2000 || !value.startsWith("/")) return null;
  // `//host` and `/\host` are other origins to a browser; control characters have no place in a path.
  if (value.startsWith("//") || value.includes("\\") || /\p{Cc}/u.test(value)) return null;
  let url: URL;
  try {
    url = new URL(value, BASE);
  } catch {
    return null;
  }
  if (url.origin !== BASE || NOT_RETURNED_TO.has(url.pathname) || url.pathname.startsWith("/api/")) return null;
  url.searchParams.delete("_rsc"); // a client-side navigation's fetch, not part of the page's address
  return url.pathname + url.search;
}

/** The sign-in page, remembering `requested` when it is worth coming back to. */
export function loginPath(requested: string | null | undefined): string {
  const back = safeReturnPath(requested);
  return back ? `/login?callbackUrl=${encodeURIComponent(back)}` : "/login";
}
