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

  it("refuses a filter that is not JSON as an invalid filter", () => {
    expect(() => destinationFieldsFromForm(formOf({ filter: "{body: 1}" }))).toThrow(InvalidFilterError);
  });
});
