import { describe, expect, it } from "vitest";
import { renderAlertMail } from "./render-alert-mail";

describe("alert mail escapes what tenants and destinations wrote", () => {
  it("keeps markup in the endpoint name and the last error as text in the HTML, and headers on one line", () => {
    process.env.APP_URL = "https://inbox.example.com/";
    const mail = renderAlertMail({
      kind: "dead_deliveries",
      endpoint: { id: "ep_1", name: "<b>Evil</b>\r\nBcc: x@example.test", paused: false },
      newCount: 1,
      totalCount: 1,
      lastError: `HTTP 500: <script>alert("x")</script>`,
      openedAt: new Date("2026-01-01T00:00:00Z"),
    });
    expect(mail.subject).not.toMatch(/[\r\n]/);
    expect(mail.subject).toBe("[Webhook Inbox] <b>Evil</b> Bcc: x@example.test: 1 delivery went dead");
    expect(mail.html).not.toContain("<script>");
    expect(mail.html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(mail.html).toContain("&lt;b&gt;Evil&lt;/b&gt;");
    expect(mail.text).toContain("https://inbox.example.com/deliveries?endpointId=ep_1&status=dead");
  });
});
