import { describe, expect, it } from "vitest";
import { loginPath, safeReturnPath } from "./return-path";

describe("sign-in returns only to a path of this site", () => {
  it("keeps a dashboard path and its query", () => {
    expect(safeReturnPath("/deliveries/dlv_abc")).toBe("/deliveries/dlv_abc");
    expect(safeReturnPath("/deliveries?endpointId=ep_1&status=pending")).toBe("/deliveries?endpointId=ep_1&status=pending");
    expect(safeReturnPath("/deliveries?status=pending&_rsc=1x2y")).toBe("/deliveries?status=pending");
  });

  it.each([
    "https://evil.example/phish",
    "//evil.example/phish",
    "/\\evil.example/phish",
    "/\\/evil.example",
    "\\\\evil.example",
    "javascript:alert(1)",
    "evil.example",
    "/deliveries\n/x",
    "",
    "/api/auth/signout",
    "/login",
    `/${"a".repeat(2001)}`,
  ])("refuses %j", (value) => {
    expect(safeReturnPath(value)).toBeNull();
  });

  it("refuses what is not a string", () => {
    expect(safeReturnPath(undefined)).toBeNull();
    expect(safeReturnPath(["/deliveries"])).toBeNull();
  });

  it("builds the sign-in link with the path to come back to, or none", () => {
    expect(loginPath("/deliveries/dlv_abc")).toBe("/login?callbackUrl=%2Fdeliveries%2Fdlv_abc");
    expect(loginPath("/overview")).toBe("/login");
    expect(loginPath("//evil.example")).toBe("/login");
    expect(loginPath(null)).toBe("/login");
  });
});
