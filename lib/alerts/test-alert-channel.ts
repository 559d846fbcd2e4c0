import { config } from "@/lib/config/config";
import { withTransaction, type Ctx } from "@/lib/context";
import { alertRecipients } from "./alert-recipients";
import { getAlertChannelRowOrThrow } from "./get-alert-channel-or-throw";
import { testMessage } from "./incident-message";
import { queueNotification } from "./queue-notification";

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * Queues a test notification on a channel, through the same path as an incident's (recorded, retried); its
 * id. An email channel's address still awaiting confirmation: the test goes to the owners, as alerts would.
 */
export async function testAlertChannel({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<{ id: string }> {
  const channel = await getAlertChannelRowOrThrow({ ctx, input });
  const message = testMessage(channel, config().APP_URL);
  return withTransaction(ctx, async (ctx) => {
    const to = channel.type === "email" ? await alertRecipients({ ctx, input: { endpoint: { alertEmail: channel.target } } }) : [];
    const mail = {
      to,
      subject: `[Webhook Inbox] ${message.summary}`,
      text: `${message.text}\n\n${message.link.label}: ${message.link.href}\n`,
      html: `<p>${escapeHtml(message.text)}</p><p><a href="${escapeHtml(message.link.href)}">${escapeHtml(message.link.label)}</a></p>`,
    };
    const id = await queueNotification({ ctx, input: { incidentId: null, channel, event: "test", message, mail } });
    return { id: id! };
  });
}
