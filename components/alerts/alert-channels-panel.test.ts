import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { AlertChannelView } from "@/lib/alerts/present-alert-channel";
import { AlertChannelsPanel } from "./alert-channels-panel";

const channel = (name: string, type: AlertChannelView["type"], target: string, awaitingConfirmation = false): AlertChannelView => ({
  id: `ach_${name}`, name, type, target, awaitingConfirmation, createdAt: "2026-12-01T00:00:00.000Z", updatedAt: "2026-12-01T00:00:00.000Z",
});
const channels = [channel("ops", "slack", "https://hooks.slack.com/…WXYZ"), channel("pager", "email", "pager@example.test", true)];
const act = async () => ({});
const render = (actions: boolean) =>
  renderToStaticMarkup(createElement(AlertChannelsPanel, { channels, actions: actions ? { create: act, remove: act, test: act } : null }));

describe("the alert channels panel", () => {
  it("lists each channel as the API shows it, and says which address awaits its confirmation", () => {
    const html = render(false);
    expect(html).toContain("https://hooks.slack.com/…WXYZ");
    expect(html).toContain("awaiting confirmation");
    expect(html.match(/data-testid="alert-channel"/g)).toHaveLength(2);
  });

  it("offers Add, Test and Delete only to those who may change channels", () => {
    expect(render(false)).not.toMatch(/Add channel|aria-label="Test ops"|aria-label="Delete ops"/);
    const html = render(true);
    expect(html).toContain("Add channel");
    expect(html).toContain('aria-label="Test ops"');
    expect(html).toContain('aria-label="Delete pager"');
  });
});
