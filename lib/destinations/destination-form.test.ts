import { describe, expect, it } from "vitest";
import { InvalidFilterError } from "@/lib/errors";
import { destinationChangesFromForm, destinationFieldsFromForm } from "./destination-form";

const formOf = (fields: Record<string, string>) => {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  return form;
};

describe("the dashboard's destination form becomes the API's body", () => {
  it("saves what it shows: trimmed text, numbers, the filter as JSON, paused from its box", () => {
    const fields = destinationFieldsFromForm(formOf({ name: " Billing ", url: "https://example.com/b", filter: '{"body": {"type": "a"}}', maxAttempts: "3", retryBaseSeconds: "", timeoutMs: "2000", paused: "on" }));
    expect(fields).toEqual({ name: "Billing", url: "https://example.com/b", filter: { body: { type: "a" } }, maxAttempts: 3, timeoutMs: 2000, paused: true });
  });

  it("the list's Pause/Resume button changes that alone, whatever else the form holds", () => {
    expect(destinationChangesFromForm(formOf({ pausedOnly: "1", paused: "on", name: "ignored" }))).toEqual({ paused: true });
    expect(destinationChangesFromForm(formOf({ pausedOnly: "1" }))).toEqual({ paused: false });
    expect(destinationChangesFromForm(formOf({ name: "B", url: "https://example.com/b" }))).toMatchObject({ name: "B", paused: false });
  });

  it("an empty filter removes it, an unticked box resumes", () => {
    expect(destinationFieldsFromForm(formOf({ name: "B", url: "https://example.com/b", filter: "" }))).toMatchObject({ filter: null, paused: false });
  });

  it("sets the circuit breaker from its two boxes, and an empty count turns it off", () => {
    expect(destinationFieldsFromForm(formOf({ autoPauseFailures: "5", autoPauseMinutes: "10" })).autoPause).toEqual({ consecutiveFailures: 5, minutes: 10 });
    expect(destinationFieldsFromForm(formOf({ autoPauseFailures: "3", autoPauseMinutes: "" })).autoPause).toEqual({ consecutiveFailures: 3, minutes: 0 });
    expect(destinationFieldsFromForm(formOf({ autoPauseFailures: "", autoPauseMinutes: "10" })).autoPause).toBeNull();
    expect(destinationFieldsFromForm(formOf({ name: "B" }))).not.toHaveProperty("autoPause");
  });

  it("refuses a filter that is not JSON as an invalid filter", () => {
    expect(() => destinationFieldsFromForm(formOf({ filter: "{body: 1}" }))).toThrow(InvalidFilterError);
  });
});
