import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ApiKeysPanel, type ApiKeyRow } from "./api-keys-panel";

const key = (name: string, role: ApiKeyRow["role"]): ApiKeyRow => ({
  id: `key_${name}`, name, prefix: "inbox_sk_abcdef", role, createdByEmail: null, createdAt: "2026-12-01T00:00:00.000Z", lastUsedAt: null, revokedAt: null,
});
const render = (grantableRoles: ApiKeyRow["role"][]) =>
  renderToStaticMarkup(
    createElement(ApiKeysPanel, {
      keys: [key("bootstrap", "owner"), key("deploys", "admin")],
      createAction: async (state) => state,
      revokeAction: async (state) => state,
      grantableRoles,
    }),
  );

describe("the API keys panel offers Revoke only for keys the member may revoke", () => {
  it("an admin gets no Revoke for an owner key, and is told why; an owner gets it for both", () => {
    const asAdmin = render(["admin", "viewer"]);
    expect(asAdmin).not.toContain('aria-label="Revoke bootstrap"');
    expect(asAdmin).toContain('aria-label="Revoke deploys"');
    expect(asAdmin).toContain("Only an owner may revoke it");
    const asOwner = render(["owner", "admin", "viewer"]);
    expect(asOwner).toContain('aria-label="Revoke bootstrap"');
    expect(asOwner).not.toContain("Only an owner may revoke it");
  });
});
