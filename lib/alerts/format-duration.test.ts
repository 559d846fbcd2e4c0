import { describe, expect, it } from "vitest";
import { formatDuration } from "./format-duration";

describe("formats a duration in at most two units", () => {
  it("reads naturally from seconds to days", () => {
    expect(formatDuration(0)).toBe("0 s");
    expect(formatDuration(45)).toBe("45 s");
    expect(formatDuration(300)).toBe("5 min");
    expect(formatDuration(725)).toBe("12 min 5 s");
    expect(formatDuration(7_380)).toBe("2 h 3 min");
    expect(formatDuration(3_600 * 6)).toBe("6 h");
    expect(formatDuration(86_400 * 3 + 3_600 * 4 + 59)).toBe("3 d 4 h");
  });
});
