// The stored body: JSON pretty-printed, other text as is, binary as base64 (as the REST API gives it).
function pretty(body: string): string | null {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return null;
  }
}

export function DeliveryBody({ body, encoding, sizeBytes }: { body: string; encoding: "utf8" | "base64"; sizeBytes: number }) {
  const json = encoding === "utf8" ? pretty(body) : null;
  const kind = encoding === "base64" ? "binary, shown as base64" : json !== null ? "JSON, pretty-printed" : "text, as received";
  return (
    <figure>
      <figcaption className="mb-1 text-xs text-slate-500">{sizeBytes} bytes · {kind}</figcaption>
      <pre data-testid="delivery-body" tabIndex={0} aria-label="Body" className="max-h-[32rem] overflow-auto rounded bg-slate-900 p-3 font-mono text-xs whitespace-pre-wrap break-all text-slate-100">
        {json ?? body}
      </pre>
    </figure>
  );
}
