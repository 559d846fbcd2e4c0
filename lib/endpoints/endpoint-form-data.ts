/** Turns the dashboard's endpoint form into the same input the REST API takes. */
export function endpointInputFromForm(form: FormData): Record<string, unknown> {
  const text = (name: string) => {
    const value = form.get(name);
    return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
  };
  const number = (name: string) => (text(name) === undefined ? undefined : Number(text(name)));
  const provider = text("provider");
  return Object.fromEntries(
    Object.entries({
      name: text("name") ?? "",
      provider,
      secret: text("secret"),
      verifyToken: text("verifyToken"),
      destinationUrl: text("destinationUrl") ?? "",
      maxAttempts: number("maxAttempts"),
      retryBaseSeconds: number("retryBaseSeconds"),
      timeoutMs: number("timeoutMs"),
      alertPendingAgeSeconds: number("alertPendingAgeSeconds"),
      alertEmail: text("alertEmail"),
      genericHmac:
        provider === "generic-hmac"
          ? { header: text("hmacHeader") ?? "", algorithm: text("hmacAlgorithm"), encoding: text("hmacEncoding"), prefix: text("hmacPrefix") ?? null, idHeader: text("hmacIdHeader") ?? null }
          : undefined,
    }).filter(([, value]) => value !== undefined),
  );
}
