// Issue #12 point 2: sessions end on the server. Through a real Next.js server and Auth.js: a cookie
// saved before sign-out opens nothing after it; a password change ends the user's other sessions but
// not the one that changed it; a removed membership stops working on the next request.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { changePassword } from "@/lib/auth/change-password";
import { checkSession } from "@/lib/sessions/check-session";
import { CookieJar, getPage, signInOverHttp, signOutOverHttp } from "@/test/auth-http";
import { useTestDatabase } from "@/test/db";
import { createOrganizationFixture } from "@/test/fixtures";
import { startNextServer, type RunningServer } from "@/test/next-server";

const database = useTestDatabase();
const PASSWORD = "a-long-test-password";
let server: RunningServer | undefined;
let url = "";

beforeAll(async () => {
  // This file signs in dozens of times within seconds from one process: the per-process sign-in gate
  // (lib/auth/sign-in-gate.ts, tested on its own) would answer some "busy".
  server = await startNextServer({ databaseUrl: database.url(), env: { AUTH_SECRET: process.env.AUTH_SECRET, AUTH_SIGNIN_RATE: "1000" } });
  url = server.url;
}, 240_000);
afterAll(async () => {
  await server?.stop();
});

const signedIn = async (email: string, password = PASSWORD) => {
  const jar = new CookieJar();
  const answer = await signInOverHttp(url, jar, email, password);
  expect(answer.location).toBe(`${url}/overview`);
  expect(jar.cookies.has("authjs.session-token")).toBe(true);
  return jar;
};
const expectOpens = async (jar: CookieJar, path: string) => {
  const page = await getPage(url, path, jar);
  expect(page.status).toBe(200);
};
const expectLogin = async (jar: CookieJar, path: string) => {
  const page = await getPage(url, path, jar);
  expect(page.status).toBe(307);
  // To sign-in, which brings the person back to the page asked for (the overview is where sign-in lands anyway).
  const login = new URL(page.location!, url);
  expect(login.pathname).toBe("/login");
  expect(login.searchParams.get("callbackUrl")).toBe(path === "/overview" ? null : path);
};
const sessionIds = async (userId: string) =>
  (await getSql()`select id from sessions where user_id = ${userId} order by created_at, id`).map((r) => r.id as string);

describe("sign-out ends the session on the server", () => {
  it("a cookie saved before sign-out is sent to /login afterwards", async () => {
    const owner = await createOrganizationFixture();
    const jar = await signedIn(owner.email);
    await expectOpens(jar, "/api-keys");
    await expectOpens(jar, "/overview");
    expect(await sessionIds(owner.userId)).toHaveLength(1);
    const saved = jar.clone();
    await signOutOverHttp(url, jar);
    expect(jar.cookies.has("authjs.session-token")).toBe(false);
    expect(await sessionIds(owner.userId)).toHaveLength(0);
    await expectLogin(saved, "/api-keys");
    await expectLogin(saved, "/overview");
    // The home page reads the session too: the ended one gets the signed-out landing page, not the overview.
    const home = await getPage(url, "/", saved);
    expect(home.status).toBe(200);
  });
});

describe("changing the password ends the user's other sessions", () => {
  it("keeps the session that changed it and closes the other one", async () => {
    const owner = await createOrganizationFixture();
    const laptop = await signedIn(owner.email);
    const phone = await signedIn(owner.email);
    await expectOpens(laptop, "/api-keys");
    await expectOpens(phone, "/api-keys");
    const [laptopSession] = await sessionIds(owner.userId);
    await expect(
      changePassword({ userId: owner.userId, sessionId: laptopSession!, currentPassword: "not-the-password", newPassword: "a-new-long-password" }),
    ).rejects.toThrow("The current password is wrong.");
    await expectOpens(phone, "/api-keys");
    await changePassword({ userId: owner.userId, sessionId: laptopSession!, currentPassword: PASSWORD, newPassword: "a-new-long-password" });
    await expectOpens(laptop, "/api-keys");
    await expectLogin(phone, "/api-keys");
    expect(await sessionIds(owner.userId)).toEqual([laptopSession]);
    // The new password signs in; the old one no longer does.
    expect((await signInOverHttp(url, new CookieJar(), owner.email, PASSWORD)).location).toMatch(/error=CredentialsSignin/);
    await signedIn(owner.email, "a-new-long-password");
  });
});

describe("a removed membership stops working on the next request", () => {
  it("redirects to /login once the membership row is gone", async () => {
    const owner = await createOrganizationFixture();
    const jar = await signedIn(owner.email);
    await expectOpens(jar, "/endpoints");
    await getSql()`delete from memberships where user_id = ${owner.userId} and organization_id = ${owner.organizationId}`;
    await expectLogin(jar, "/endpoints");
    await expectLogin(jar, "/overview");
  });
});

describe("sign-in over HTTP is throttled", () => {
  it("refuses the right password after 10 wrong ones, with the throttle's code and no session", async () => {
    const owner = await createOrganizationFixture();
    for (let i = 0; i < 10; i++) {
      expect((await signInOverHttp(url, new CookieJar(), owner.email, `wrong-${i}-password`)).location).toMatch(/error=CredentialsSignin&code=credentials/);
    }
    const jar = new CookieJar();
    const refused = await signInOverHttp(url, jar, owner.email, PASSWORD);
    expect(refused.location).toMatch(/error=CredentialsSignin&code=too_many_attempts/);
    expect(jar.cookies.has("authjs.session-token")).toBe(false);
    expect(await sessionIds(owner.userId)).toHaveLength(0);
  });
});

describe("bad sign-in input over HTTP is refused cleanly", () => {
  it("answers a huge email, control characters and a NUL with the wrong-password redirect, never a 500", async () => {
    const owner = await createOrganizationFixture();
    for (const [email, password] of [
      ["x".repeat(200_000) + "@example.test", PASSWORD],
      [`${owner.email}\u0000`, PASSWORD],
      [`a\u0007\u001b[2Jb@example.test`, PASSWORD],
      [owner.email, "p".repeat(200_000)],
    ]) {
      const answer = await signInOverHttp(url, new CookieJar(), email!, password!);
      expect(answer.status).toBe(302);
      expect(answer.location).toMatch(/error=CredentialsSignin&code=credentials/);
    }
    await signedIn(owner.email);
  });
});

describe("last_seen_at is refreshed at most once a minute", () => {
  it("updates a session seen over a minute ago, and not one seen just now", async () => {
    const owner = await createOrganizationFixture();
    await signedIn(owner.email);
    const [id] = await sessionIds(owner.userId);
    const seen = async () => ((await getSql()`select last_seen_at from sessions where id = ${id!}`)[0]!.last_seen_at as Date).getTime();
    await getSql()`update sessions set last_seen_at = now() - interval '2 minutes' where id = ${id!}`;
    const before = await seen();
    expect(await checkSession(id!)).toEqual({ userId: owner.userId, organizationId: owner.organizationId, role: "owner" });
    const refreshed = await seen();
    expect(refreshed).toBeGreaterThan(before + 60_000);
    await checkSession(id!);
    expect(await seen()).toBe(refreshed);
    await getSql()`update sessions set expires_at = now() - interval '1 second' where id = ${id!}`;
    expect(await checkSession(id!)).toBeNull();
  });
});
