import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { MailList } from "./mail-list";

describe("the mailbox lists each mail with subject, recipients, time, status and body", () => {
  it("shows the plain-text body as text and an earlier failure", () => {
    const html = renderToStaticMarkup(
      createElement(MailList, {
        mails: [
          {
            id: "mail_1",
            incidentId: null,
            recipients: ["ops@example.test"],
            subject: "[Webhook Inbox] Orders: 2 deliveries went dead",
            textBody: "Last error: <HTTP 500>",
            status: "sent",
            attempts: 2,
            error: "Message failed: 451 busy",
            createdAt: new Date("2026-01-02T03:04:05Z"),
            sentAt: new Date("2026-01-02T03:04:09Z"),
            carriesSecret: false,
          },
        ],
      }),
    );
    expect(html).toContain("[Webhook Inbox] Orders: 2 deliveries went dead");
    expect(html).toContain("to ops@example.test");
    expect(html).toContain("2026-01-02 03:04:05 UTC");
    expect(html).toContain(">sent<");
    expect(html).toContain("2 attempts; last error: Message failed: 451 busy");
    expect(html).toContain("Last error: &lt;HTTP 500&gt;");
    expect(renderToStaticMarkup(createElement(MailList, { mails: [] }))).toContain("No mail yet.");
  });
});
