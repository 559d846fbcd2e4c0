// The client's address as the request's headers tell it. Minimal for now: the first X-Forwarded-For
// entry, else X-Real-IP (Next.js sets X-Forwarded-For to the socket's address when a request has none).
// Issue #12 replaces this with a version that trusts X-Forwarded-For only from TRUSTED_PROXIES.

/** The client's IP address, or null when the headers do not say. */
export function clientAddress(headers: Headers): string | null {
  const forwarded = headers.get("x-forwarded-for")?.split(",")[0]?.trim();
  if (forwarded) return forwarded;
  return headers.get("x-real-ip")?.trim() || null;
}
