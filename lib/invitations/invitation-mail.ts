// The invitation mail's words. The link carries the token: it goes in the mail body and nowhere else
// (the send-mail log line names only recipient and subject).

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function renderInvitationMail(input: { organizationName: string; role: string; inviterEmail: string | null; link: string; validDays: number }) {
  const { organizationName, role, inviterEmail, link, validDays } = input;
  const who = inviterEmail ? `${inviterEmail} invited you` : "You are invited";
  return {
    subject: `[Webhook Inbox] Join ${organizationName}`,
    text: [
      `${who} to join the organization "${organizationName}" on Webhook Inbox as ${role}.`,
      `Open this link within ${validDays} days to sign up or sign in, and join:`,
      link,
      ``,
      `If you did not expect this, ignore this mail: nothing happens unless the link is used.`,
    ].join("\n"),
    html: `<p>${escapeHtml(who)} to join the organization <b>${escapeHtml(organizationName)}</b> on Webhook Inbox as <b>${escapeHtml(role)}</b>.</p>
<p><a href="${escapeHtml(link)}">Join ${escapeHtml(organizationName)}</a> (the link works for ${validDays} days).</p>
<p>If you did not expect this, ignore this mail: nothing happens unless the link is used.</p>`,
  };
}
