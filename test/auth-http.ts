// Signing in to a real Next.js server the way a browser does through Auth.js: a CSRF token from
// /api/auth/csrf, POST /api/auth/callback/credentials, cookies kept between requests.

export class CookieJar {
  readonly cookies = new Map<string, string>();
  take(response: Response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      const name = pair!.slice(0, at).trim();
      const value = pair!.slice(at + 1);
      if (!value || /expires=Thu, 01 Jan 1970/i.test(line) || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }
  clone(): CookieJar {
    const copy = new CookieJar();
    for (const [name, value] of this.cookies) copy.cookies.set(name, value);
    return copy;
  }
}

export async function csrfToken(baseUrl: string, jar: CookieJar): Promise<string> {
  const response = await fetch(`${baseUrl}/api/auth/csrf`, { headers: { cookie: jar.header() } });
  jar.take(response);
  return ((await response.json()) as { csrfToken: string }).csrfToken;
}

/** POST /api/auth/callback/credentials; the redirect Auth.js answers with (the jar keeps the session cookie). */
export async function signInOverHttp(
  baseUrl: string,
  jar: CookieJar,
  email: string,
  password: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; location: string }> {
  const token = await csrfToken(baseUrl, jar);
  const response = await fetch(`${baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header(), ...headers },
    body: new URLSearchParams({ email, password, csrfToken: token, callbackUrl: `${baseUrl}/overview` }),
  });
  jar.take(response);
  await response.arrayBuffer();
  return { status: response.status, location: response.headers.get("location") ?? "" };
}

export async function signOutOverHttp(baseUrl: string, jar: CookieJar): Promise<void> {
  const token = await csrfToken(baseUrl, jar);
  const response = await fetch(`${baseUrl}/api/auth/signout`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header() },
    body: new URLSearchParams({ csrfToken: token, callbackUrl: `${baseUrl}/login` }),
  });
  jar.take(response);
  await response.arrayBuffer();
}

/** GET a dashboard page with the jar's cookies, without following redirects. */
export async function getPage(baseUrl: string, path: string, jar: CookieJar): Promise<{ status: number; location: string | null; body: string }> {
  const response = await fetch(`${baseUrl}${path}`, { redirect: "manual", headers: { cookie: jar.header() } });
  return { status: response.status, location: response.headers.get("location"), body: await response.text() };
}
