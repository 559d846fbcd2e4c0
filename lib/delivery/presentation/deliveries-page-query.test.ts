import { describe, expect, it } from "vitest";
import { localInputValue, utcTime } from "@/lib/time-input";
import { bulkFilterFromForm, deliveriesHref, readDeliveriesQuery } from "./deliveries-page-query";

describe("the deliveries page reads the API's query parameters", () => {
  it("takes a datetime-local value as UTC and keeps ISO times as given", () => {
    expect(utcTime("2026-11-30T12:00")).toBe("2026-11-30T12:00:00Z");
    expect(utcTime("2026-11-30T12:00:05")).toBe("2026-11-30T12:00:05Z");
    expect(utcTime("2026-11-30T12:00:00+02:00")).toBe("2026-11-30T12:00:00+02:00");
    expect(localInputValue("2026-11-30T12:00:00+02:00")).toBe("2026-11-30T10:00:00");
    expect(localInputValue("not a time")).toBe("");
  });

  it("builds the filter from the first value of each parameter, ignoring empty ones", () => {
    const query = readDeliveriesQuery({ endpointId: "ep_1", destinationId: "dst_1", status: ["pending", "dead"], eventType: " ", since: "2026-11-30T12:00", q: "zebra", cursor: "abc" });
    expect(query.error).toBeNull();
    expect(query.filter).toEqual({ endpointId: "ep_1", destinationId: "dst_1", status: "pending", since: "2026-11-30T12:00:00Z", q: "zebra" });
    expect(query.cursor).toBe("abc");
    expect(query.values).toEqual({ endpointId: "ep_1", destinationId: "dst_1", status: "pending", since: "2026-11-30T12:00:00Z", q: "zebra", cursor: "abc" });
  });

  it("reports an invalid value instead of listing everything", () => {
    const query = readDeliveriesQuery({ status: "lost" });
    expect(query.filter).toBeNull();
    expect(query.error).toMatch(/status/);
  });

  it("writes links with the same parameters, and bulk filters with the search but no cursor", () => {
    expect(deliveriesHref({ status: "dead", q: "a b" }, { cursor: "c1" })).toBe("/deliveries?status=dead&q=a+b&cursor=c1");
    expect(deliveriesHref({ status: "dead" }, { status: "" })).toBe("/deliveries");
    const form = new FormData();
    form.set("endpointId", "ep_1");
    form.set("destinationId", "dst_1");
    form.set("status", "");
    form.set("q", "zebra");
    expect(bulkFilterFromForm(form)).toEqual({ endpointId: "ep_1", destinationId: "dst_1", q: "zebra" });
  });
});
