// What ingest puts into constrained columns, made storable before it joins a batch shared with other
// organizations (API.md, Tenancy). The database refuses \u0000 and lone surrogates in text and JSON
// (and one such row would fail the whole group-commit statement), and (endpoint_id, external_id) and
// (organization_id, event_type, …) are btree indexes whose rows may not pass 2,704 bytes.
// Headers need nothing: Node's HTTP parser answers 400 to any control character in a header, and
// header values arrive as latin1, which holds no surrogates.
import { InvalidEventIdError } from "@/lib/errors";

const MAX_CHARACTERS = 255;
/** Control characters (C0, DEL, C1) and lone surrogates: in `u` mode a surrogate pair is one astral code point, not \p{Cs}. */
const UNPRINTABLE = /[\p{Cc}\p{Cs}]/u;
const UNPRINTABLE_ALL = /[\p{Cc}\p{Cs}]/gu;
const PRINTABLE_ID = /^[^\p{Cc}\p{Cs}]{1,255}$/u;

/** The provider's event id if it is 1–255 printable characters (code points); else 400 invalid_event_id. */
export function storableEventId(id: string): string {
  if (PRINTABLE_ID.test(id)) return id;
  const reason = id.length === 0 ? "is empty" : UNPRINTABLE.test(id) ? "holds a control character or an unpaired surrogate" : `is longer than ${MAX_CHARACTERS} characters`;
  throw new InvalidEventIdError(`The event id ${reason}; it must be 1–${MAX_CHARACTERS} printable characters. Nothing was kept.`);
}

/** The event type cut to 255 characters with control characters removed and lone surrogates made U+FFFD; null when nothing is left. */
export function storableEventType(type: string | null): string | null {
  if (type === null) return null;
  let cleaned = UNPRINTABLE.test(type) ? type.replace(UNPRINTABLE_ALL, (c) => (c.length === 1 && c >= "\ud800" && c <= "\udfff" ? "\ufffd" : "")) : type;
  // Cut by code points, so a surrogate pair is never split in two lone halves.
  if (cleaned.length > MAX_CHARACTERS) cleaned = Array.from(cleaned).slice(0, MAX_CHARACTERS).join("");
  return cleaned.length > 0 ? cleaned : null;
}
