// The invitation mail's words. The link carries the token: the bodies hold SECRET_LINK_PLACEHOLDER and the
// send puts the link in (lib/mail/secret-link.ts), so it reaches the invitee and no page or log. The subject
// names no organization: its name is anyone's to choose at sign-up, and a subject is what a stranger reads.
import { SECRET_LINK_PLACEHOLDER } from "@/lib/mail/secret-link";

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function renderInvitationMail(input: { organizationName: string; role: string; inviterEmail: string | null; validDays: number }) {
  const { organizationName, role, inviterEmail, validDays } = input;
  const link = SECRET_LINK_PLACEHOLDER;
  const who = inviterEmail ? `${inviterEmail} invited you` : "You are invited";
  return {
    subject: "[Webhook Inbox] You are invited to join an organization",
    text: [
      `${who} to join the organization "${organizationName}" on Webhook Inbox as ${role}.`,
      `Open this link within ${validDays} days to sign up or sign in, and join:`,
      link,
      ``,
      `If you did not expect this, ignore this mail: nothing happens unless the link is used.`,
    ].join("\n"),
    html: `<p>${escapeHtml(who)} to join the organization <b>${escapeHtml(organizationName)}</b> on Webhook Inbox as <b>${escapeHtml(role)}</b>.</p>
<p><a href="${link}">Join ${escapeHtml(organizationName)}</a> (the link works for ${validDays} days).</p>
<p>If you did not expect this, ignore this mail: nothing happens unless the link is used.</p>`,
  };
}
