import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { DeliveryBody } from "./delivery-body";

describe("a delivery's body is shown the way it can be read", () => {
  it("pretty-prints JSON", () => {
    const html = renderToStaticMarkup(DeliveryBody({ body: '{"a":1,"b":[true]}', encoding: "utf8", sizeBytes: 18 }));
    expect(html).toContain("JSON, pretty-printed");
    expect(html).toContain("{\n  &quot;a&quot;: 1,\n  &quot;b&quot;: [\n    true\n  ]\n}");
  });

  it("shows other text as received, and binary as base64", () => {
    const text = renderToStaticMarkup(DeliveryBody({ body: "a=1&b=<2>", encoding: "utf8", sizeBytes: 9 }));
    expect(text).toContain("text, as received");
    expect(text).toContain(">a=1&amp;b=&lt;2&gt;</pre>");
    expect(renderToStaticMarkup(DeliveryBody({ body: "AAEC/w==", encoding: "base64", sizeBytes: 4 }))).toContain("4 bytes · binary, shown as base64");
  });
});
