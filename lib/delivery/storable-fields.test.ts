import { describe, expect, it } from "vitest";
import { InvalidEventIdError } from "@/lib/errors";
import { storableEventId, storableEventType } from "./storable-fields";

describe("an event id", () => {
  it("of 1–255 printable characters, any script, is kept as it is", () => {
    for (const id of ["a", "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W", "évènement-ñ-日本", "x".repeat(255), "😀".repeat(255), "with space"]) {
      expect(storableEventId(id)).toBe(id);
    }
  });

  it("empty, over 255 characters, or holding a control character or lone surrogate is refused with invalid_event_id", () => {
    for (const id of ["", "x".repeat(256), "a".repeat(3000), "a\u0000b", "tab\there", "line\n", "del\u007f", "c1\u0085", "lone\ud800", "\udc00low", "😀".repeat(256)]) {
      const attempt = () => storableEventId(id);
      expect(attempt, JSON.stringify(id.slice(0, 20))).toThrow(InvalidEventIdError);
      try {
        attempt();
      } catch (error) {
        expect((error as InvalidEventIdError).code).toBe("invalid_event_id");
        expect((error as InvalidEventIdError).status).toBe(400);
      }
    }
  });
});

describe("an event type", () => {
  it("that is already storable is returned unchanged", () => {
    expect(storableEventType("invoice.paid")).toBe("invoice.paid");
    expect(storableEventType("événement 日本 😀")).toBe("événement 日本 😀");
    expect(storableEventType(null)).toBeNull();
  });

  it("loses its control characters and keeps lone surrogates only as U+FFFD", () => {
    expect(storableEventType("a\u0000b\u0001c\u007fd\u009fe")).toBe("abcde");
    expect(storableEventType("x\ud800y\udfffz")).toBe("x\ufffdy\ufffdz");
    expect(storableEventType("\u0000\u0000")).toBeNull();
  });

  it("is cut to 255 characters without splitting a surrogate pair", () => {
    expect(storableEventType("t".repeat(4000))).toBe("t".repeat(255));
    const astral = storableEventType("😀".repeat(300))!;
    expect(Array.from(astral)).toHaveLength(255);
    expect(astral).toBe("😀".repeat(255));
    expect(storableEventType(`${"t".repeat(254)}😀😀`)).toBe(`${"t".repeat(254)}😀`);
  });
});
