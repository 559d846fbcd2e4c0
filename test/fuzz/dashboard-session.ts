// Signs in to the dashboard of a running server the way a browser does (Auth.js's CSRF token, then
// the credentials callback), and returns the cookie header that later requests carry.

function cookiesOf(response: Response): string[] {
  return response.headers.getSetCookie().map((line) => line.split(";")[0]!);
}

export async function signInCookie(baseUrl: string, email: string, password: string): Promise<string> {
  const csrf = await fetch(`${baseUrl}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const jar = cookiesOf(csrf);
  const signedIn = await fetch(`${baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.join("; ") },
    body: new URLSearchParams({ email, password, csrfToken, callbackUrl: `${baseUrl}/overview` }),
  });
  const session = cookiesOf(signedIn).filter((cookie) => cookie.includes("session-token"));
  if (session.length === 0) throw new Error(`sign-in failed: ${signedIn.status} ${signedIn.headers.get("location")}`);
  return [...jar, ...session].join("; ");
}
