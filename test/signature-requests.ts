// Shared by the signature tests (lib/signatures/*.test.ts): a request builder and a rejection assertion.
import { expect } from "vitest";
import { SignatureError, type SignatureErrorCode } from "@/lib/errors";
import type { SignatureVerifier, VerifyInput } from "@/lib/signatures/types";

/** A fixed clock, so tests never depend on when they run. */
export const NOW = new Date("2026-03-02T12:00:00Z");
export const NOW_SECONDS = Math.floor(NOW.getTime() / 1000);

/** The ingest URL a provider is told to send to, as built from APP_URL. */
export const INGEST_URL = "https://inbox.example.com/in/ep_test";

export function request(fields: Partial<VerifyInput> & Pick<VerifyInput, "body" | "headers">): VerifyInput {
  return { secrets: [], toleranceSeconds: 300, now: NOW, url: INGEST_URL, method: "POST", ...fields };
}

/** Asserts a SignatureError with `code`, whose message names no secret; returns it for more checks. */
export function expectRejected(verifier: SignatureVerifier, input: VerifyInput, code: SignatureErrorCode): SignatureError {
  let thrown: unknown;
  try {
    verifier.verify(input);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(SignatureError);
  const error = thrown as SignatureError;
  expect(error.code).toBe(code);
  expect(error.status).toBe(401);
  for (const secret of input.secrets) if (secret.length > 3) expect(error.message).not.toContain(secret);
  return error;
}
