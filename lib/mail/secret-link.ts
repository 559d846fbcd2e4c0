// A mail's secret link (an invitation, an alert-address confirmation) reaches its recipient and nobody
// else: the stored bodies hold a placeholder, the link itself waits beside them in mails.secret_link until
// the mail is settled, and is put in only on the way to the SMTP server.

/** Where a mail body carries its secret link; a renderer writes this, queueMail gets the link apart. */
export const SECRET_LINK_PLACEHOLDER = "{{secret-link}}";

/** What a page shows in the link's place. */
export const SECRET_LINK_REMOVED = "[link removed: it reaches only the recipient]";

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The bodies as sent: the link in the text, escaped in the HTML. */
export function withSecretLink(body: { text: string; html: string }, link: string): { text: string; html: string } {
  return { text: body.text.replaceAll(SECRET_LINK_PLACEHOLDER, link), html: body.html.replaceAll(SECRET_LINK_PLACEHOLDER, escapeHtml(link)) };
}

/** The text as a page may show it. */
export function withoutSecretLink(text: string): string {
  return text.replaceAll(SECRET_LINK_PLACEHOLDER, SECRET_LINK_REMOVED);
}
