// The fuzz suite's request generator: a seeded pseudo-random stream of malformed requests to ingest
// and to every /api/v1 route. Every request made here must be refused (or be a harmless read): none
// may store anything, so nothing is validly signed, and every body that could change an endpoint
// carries one value its schema must refuse (a "poison").

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface FuzzTargets {
  baseUrl: string;
  apiKey: string;
  otherApiKey: string;
  revokedApiKey: string;
  /** Endpoint ids by provider. */
  endpoints: Record<string, string>;
  deliveryId: string;
}

export type Body = string | Uint8Array;

export type FuzzRequest =
  | { via: "fetch"; family: string; method: string; path: string; headers: Record<string, string>; body?: Body; slowMs?: number; mayDrop?: boolean }
  | { via: "raw"; family: string; bytes: Buffer; dribbleMs?: number };

const PROVIDER_HEADERS: Record<string, string[]> = {
  "standard-webhooks": ["webhook-id", "webhook-timestamp", "webhook-signature"],
  stripe: ["stripe-signature"],
  github: ["x-hub-signature-256", "x-github-delivery", "x-github-event"],
  shopify: ["x-shopify-hmac-sha256", "x-shopify-event-id", "x-shopify-webhook-id", "x-shopify-topic"],
  slack: ["x-slack-signature", "x-slack-request-timestamp"],
  "generic-hmac": ["x-sig", "x-event-id"],
};

export function makeGenerator(seed: number, targets: FuzzTargets) {
  const random = seededRandom(seed);
  const int = (max: number) => Math.floor(random() * max);
  const chance = (p: number) => random() < p;
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const hex = (n: number) => Array.from({ length: n }, () => "0123456789abcdef"[int(16)]).join("");
  const b64 = (n: number) => Buffer.from(Array.from({ length: n }, () => int(256))).toString("base64");
  const now = () => Math.floor(Date.now() / 1000);
  const fakeId = (prefix: string) => `${prefix}_${Array.from({ length: 25 }, () => "0123456789abcdefghijklmnopqrstuvwxyz"[int(36)]).join("")}`;

  // Text as it would appear raw in a URL (percent sequences included on purpose) or a value.
  const NASTY = [
    "'", '"', "';--", '" OR 1=1 --', "'; drop table deliveries; --", "%00", "a%00b", "%2e%2e%2f", "../../etc/passwd", "..%2f..%2f", "..\\..\\",
    "<script>alert(1)</script>", "${jndi:ldap://x/a}", "{{7*7}}", "\\", "%", "%%", "%ZZ", "%C3%28", "%ED%A0%80", "%FF%FE", "%F0%9F%98%80",
    "😀", "\u202e", "ä", "𝕏", "%20", "+", "&", "=", "#", ";", ",", "*", "invoice.*", "*.*", "NULL", "null", "undefined", "NaN",
    "Infinity", "-1", "0", "1e309", "9".repeat(400), "-9223372036854775809", "0x10", "1.5", "true", "[]", "{}", "%7B%7D", "a".repeat(5000),
    "%0d%0aSet-Cookie:%20x=1", "%E2%80%AE", "\u0000".replace("\u0000", "%01"), "%7F", "%C2%85", "dlv_", "ep_", "ep_" + "z".repeat(25),
    "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999999Z", "275760-09-13T00:00:00Z",
    "2026-12-01T16:39:07.123456Z", "1970-01-01T00:00:00Z", "-000001-01-01T00:00:00Z", "2026-12-01T24:00:00Z",
  ] as const;
  const encodedNasty = () => (chance(0.5) ? pick(NASTY) : encodeURIComponent(pick(NASTY)));
  const JSON_STRINGS = ["", " ", "\u0000", "a\u0000b", "\u0007", "\t", "\u0085", "\ud800", "\udfff", "😀", "'\";--", "../".repeat(50), "x".repeat(300), "y".repeat(70_000), "%00", "http://user:pass@127.0.0.1:9/", "http://[::1]/", "file:///etc/passwd", "javascript:alert(1)", "whsec_!!!"];
  const JSON_NUMBERS = [0, -1, 1.5, -0.0001, 1e308, -1e308, 2 ** 53 + 2, -(2 ** 63), 86_400 * 365, 26_214_401, 7 * 86_400 + 1];

  function jsonValue(depth = 0): unknown {
    switch (int(depth > 3 ? 4 : 7)) {
      case 0: return null;
      case 1: return chance(0.5);
      case 2: return pick(JSON_NUMBERS);
      case 3: return pick(JSON_STRINGS);
      case 4: return Array.from({ length: int(4) }, () => jsonValue(depth + 1));
      case 5: return Object.fromEntries(Array.from({ length: int(4) }, () => [pick(["name", "provider", "secret", "a\u0000", "__proto__", "constructor", "", "x".repeat(200)]), jsonValue(depth + 1)]));
      default: return pick(NASTY);
    }
  }

  const ENDPOINT_FIELDS = ["name", "provider", "secret", "destinationUrl", "maxAttempts", "retryBaseSeconds", "timeoutMs", "maxBodyBytes", "toleranceSeconds", "paused", "alertPendingAgeSeconds", "alertEmail", "genericHmac", "outboundSecret"];
  // One of these in a body makes it invalid for create and patch alike, whatever else it holds.
  const ENDPOINT_POISONS: Array<[string, unknown]> = [
    ["maxAttempts", 0], ["maxAttempts", 51], ["timeoutMs", 99], ["provider", "nope"], ["name", ""], ["__fuzz", 1], ["paused", "yes"],
    ["retryBaseSeconds", 1.5], ["maxBodyBytes", 26_214_401], ["toleranceSeconds", -5], ["alertEmail", "not-an-email"], ["name", "a\u0000"],
  ];
  const ROTATE_POISONS: Array<[string, unknown]> = [["gracePeriodSeconds", -1], ["gracePeriodSeconds", 1.5], ["secret", 42], ["__fuzz", true], ["gracePeriodSeconds", 1e308], ["secret", "\u0000"]];
  // The organization's PATCH: one of these makes any body invalid.
  const ORGANIZATION_POISONS: Array<[string, unknown]> = [
    ["retentionDays", 0], ["retentionDays", 366], ["retentionDays", "30"], ["retentionDays", 1.5], ["retentionDays", null], ["name", ""], ["name", 7], ["name", "a\u0000"], ["__fuzz", 1],
  ];
  // An invitation: one of these makes any body invalid (a valid one would send a real invitation).
  const INVITATION_POISONS: Array<[string, unknown]> = [
    ["role", "superuser"], ["role", 1], ["role", null], ["email", "not-an-email"], ["email", ""], ["email", "a\u0000@example.test"], ["__fuzz", 1],
  ];
  const FILTER_FIELDS = ["endpointId", "status", "eventType", "since", "until", "q", "limit"];

  /** A bulk filter, valid or not, that can never name a delivery: its endpoint does not exist (404 when valid). */
  function filterBody(): string {
    const filter: Record<string, unknown> = Object.fromEntries(Array.from({ length: 1 + int(3) }, () => [pick(FILTER_FIELDS), jsonValue()]));
    if (typeof filter.endpointId !== "string" || isOurEndpoint(filter.endpointId)) filter.endpointId = fakeId("ep");
    return JSON.stringify(filter);
  }
  const isOurEndpoint = (id: string) => Object.values(targets.endpoints).includes(id);

  function poisoned(fields: string[], poisons: Array<[string, unknown]>): string {
    const body: Record<string, unknown> = { name: "fuzz", provider: pick(["none", "stripe", "standard-webhooks"]), destinationUrl: "http://127.0.0.1:9/fuzz" };
    for (let i = int(4); i > 0; i--) body[pick(fields)] = jsonValue();
    const [field, value] = pick(poisons);
    body[field] = value;
    return JSON.stringify(body);
  }

  function poisonedOrganization(): string {
    const body: Record<string, unknown> = {};
    for (let i = int(3); i > 0; i--) body[pick(["name", "retentionDays"])] = jsonValue();
    const [field, value] = pick(ORGANIZATION_POISONS);
    body[field] = value;
    return JSON.stringify(body);
  }

  function nested(): string {
    const n = pick([33, 200, 5_000, 60_000]);
    return chance(0.5) ? "[".repeat(n) + "]".repeat(n) : '{"a":'.repeat(n) + "1" + "}".repeat(n);
  }

  const BAD_JSON = ["{", '{"a":}', "[1,2", "{'a':1}", "NaN", "--", "\u0000", '{"a":1}garbage', '{"a":1,"a":2', "\ufeff{}", "tru", '"unterminated', "{\"name\":\"\\ud800\"}", "1e99999"];
  const INVALID_UTF8 = [Buffer.from([0xff, 0xfe, 0xfd]), Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xc0, 0x80]), Buffer.from([0xf8, 0x88, 0x80, 0x80, 0x80])];

  /** A body for a route whose valid bodies would change something: always refused. */
  function refusedBody(kind: "endpoint" | "rotate" | "filter" | "organization" | "invitation"): Body {
    switch (int(10)) {
      case 0: return pick(BAD_JSON);
      case 1: return pick(INVALID_UTF8);
      case 2: return nested();
      case 3: return JSON.stringify(jsonValue()) + "x";
      default:
        if (kind === "organization") return poisonedOrganization();
        if (kind === "invitation") return poisoned(["email", "role"], INVITATION_POISONS);
        return kind === "rotate" ? poisoned(["secret", "gracePeriodSeconds"], ROTATE_POISONS) : kind === "endpoint" ? poisoned(ENDPOINT_FIELDS, ENDPOINT_POISONS) : filterBody();
    }
  }

  const CONTENT_TYPES = ["application/json", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json; charset=utf-16", "application/octet-stream", "*/*", "application/json; charset=\"", ""];

  function query(): string {
    const names = ["endpointId", "status", "eventType", "q", "since", "until", "limit", "cursor", "dryRun", "unknown", "q%00", "limit[]", "%ZZ"];
    const parts = Array.from({ length: int(5) }, () => {
      const name = pick(names);
      const value = name === "cursor" ? pick(cursorValues()) : name === "limit" ? pick(["0", "1", "200", "201", "-1", "1e3", "0x10", "1.5", "NaN", " 5", "", "99999999999999999999"]) : encodedNasty();
      return `${name}=${value}`;
    });
    return parts.length ? `?${parts.join("&")}` : "";
  }

  function cursorValues(): string[] {
    const c = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    return [c(["1", "x"]), c(["2026-12-01T16:39:07.123456Z", "x"]), c(["2026-13-01T00:00:00.000Z", fakeId("dlv")]), c([null, null]), c({}), c("x"),
      c(["2026-12-01T16:39:07.123456Z", fakeId("dlv"), 1]), c(["0000-01-01T00:00:00.000Z", fakeId("ep")]), "%00", "!!!", "a".repeat(3000), c(["2026-12-01T16:39:07.123Z", fakeId("ep")])];
  }

  function authorization(): { header?: string; valid: boolean } {
    const roll = random();
    if (roll < 0.6) return { header: `Bearer ${targets.apiKey}`, valid: true };
    if (roll < 0.65) return { header: `Bearer ${targets.otherApiKey}`, valid: true };
    return {
      valid: false,
      header: pick([undefined, "", "Bearer", "Bearer ", `Bearer ${targets.revokedApiKey}`, `Bearer inbox_sk_${hex(32)}`, `bearer ${targets.apiKey}x`, `Basic ${b64(12)}`,
        `Bearer ${targets.apiKey} ${targets.apiKey}`, `Bearer ${"inbox_sk_" + "a".repeat(8000)}`, `Bearer ${encodedNasty()}`, `Bearer inbox_sk_${"ä".repeat(20)}`]),
    };
  }

  const ROUTES: Array<{ path: string; methods: string[] }> = [
    { path: "/api/v1/endpoints", methods: ["GET", "POST"] },
    { path: "/api/v1/endpoints/{ep}", methods: ["GET", "PATCH", "DELETE"] },
    { path: "/api/v1/endpoints/{ep}/stats", methods: ["GET"] },
    { path: "/api/v1/endpoints/{ep}/rotate-secret", methods: ["POST"] },
    { path: "/api/v1/deliveries", methods: ["GET"] },
    { path: "/api/v1/deliveries/{dlv}", methods: ["GET"] },
    { path: "/api/v1/deliveries/{dlv}/replay", methods: ["POST"] },
    { path: "/api/v1/deliveries/{dlv}/bury", methods: ["POST"] },
    { path: "/api/v1/deliveries/replay", methods: ["POST"] },
    { path: "/api/v1/deliveries/bury", methods: ["POST"] },
    { path: "/api/v1/organization", methods: ["GET", "PATCH"] },
    // Members and invitations: ids are never real ones (a valid change would be real), bodies always refused.
    { path: "/api/v1/members", methods: ["GET"] },
    { path: "/api/v1/members/{usr}", methods: ["PATCH", "DELETE"] },
    { path: "/api/v1/invitations", methods: ["GET", "POST"] },
    { path: "/api/v1/invitations/{inv}", methods: ["DELETE"] },
    { path: "/api/v1/audit-log", methods: ["GET"] },
  ];
  const realEndpoint = () => pick(Object.values(targets.endpoints));

  function restRequest(): FuzzRequest {
    const route = pick(ROUTES);
    const auth = authorization();
    let method = chance(0.05) ? pick(["PUT", "OPTIONS", "HEAD", "TRACE", "PATCH", "DELETE"]) : pick(route.methods);
    if (method === "TRACE") method = "GET"; // fetch refuses TRACE
    let real = false;
    const path = route.path
      .replace("{ep}", () => {
        const roll = random();
        if (roll < 0.35) return (real = true), realEndpoint();
        return roll < 0.6 ? fakeId("ep") : roll < 0.7 ? fakeId("dlv") : encodedNasty();
      })
      .replace("{usr}", () => (chance(0.7) ? fakeId("usr") : encodedNasty()))
      .replace("{inv}", () => (chance(0.7) ? fakeId("inv") : encodedNasty()))
      .replace("{dlv}", () => {
        const roll = random();
        if (roll < 0.3) return (real = true), targets.deliveryId;
        return roll < 0.6 ? fakeId("dlv") : encodedNasty();
      });
    const headers: Record<string, string> = {};
    if (auth.header !== undefined) headers.authorization = auth.header;
    // A valid key on a real id may only read: a delete, replay or bury of it would be a real change.
    if (auth.valid && real && (method === "DELETE" || route.path.endsWith("/replay") || route.path.endsWith("/bury"))) method = "GET";
    let body: Body | undefined;
    let mayDrop = false;
    if (method !== "GET" && method !== "HEAD") {
      const kind = route.path.endsWith("rotate-secret") ? "rotate" : route.path.includes("/deliveries") ? "filter" : route.path.endsWith("/organization") ? "organization"
        : route.path.includes("/invitations") || route.path.includes("/members") ? "invitation" : "endpoint";
      if (chance(0.005)) {
        body = HUGE_REST; // over 1 MiB: 413 while it is still being sent, so the upload may be cut short
        mayDrop = true;
      } else if (chance(0.03) && (!auth.valid || (kind === "endpoint" && method === "POST"))) {
        body = ""; // reads as {}: refused by create; with a valid key, a patch, rotate or bulk call of {} would act
      } else {
        body = refusedBody(kind);
      }
      headers["content-type"] = pick(CONTENT_TYPES);
    }
    return { via: "fetch", family: `rest ${method} ${route.path}`, method, path: path + (chance(0.5) ? query() : ""), headers, body, mayDrop };
  }

  function signatureHeaders(provider: string): Record<string, string> {
    const headers: Record<string, string> = {};
    const ts = () => pick([String(now()), String(now() - 100_000), String(now() + 100_000), "0", "-1", "1e20", "99999999999999999999999", "abc", "", "1.5", String(2 ** 53), "NaN", "0x10"]);
    const big = (prefix: string) => prefix + "A".repeat(pick([100, 2000, 8000]));
    for (const name of PROVIDER_HEADERS[provider] ?? []) {
      if (chance(0.15)) continue; // missing
      let value: string;
      if (name.endsWith("timestamp")) value = ts();
      else if (name === "webhook-signature") value = pick([`v1,${b64(32)}`, `v1,${b64(3)}`, `v2,${b64(32)}`, "v1,", "v1", big("v1,"), Array.from({ length: 300 }, () => `v1,${b64(32)}`).join(" "), `v1,${hex(64)}`, "v1,!!!!"]);
      else if (name === "stripe-signature") value = pick([`t=${ts()},v1=${hex(64)}`, `t=${ts()},v1=${hex(3)}`, "t=,v1=", `t=${ts()}`, `v1=${hex(64)}`, Array.from({ length: 300 }, () => `v1=${hex(64)}`).join(","), big("t=1,v1="), "t=1e400,v1=zz", ",,,,=,=", `t=${ts()},v0=${hex(64)},v1=${hex(63)}`]);
      else if (name === "x-hub-signature-256") value = pick([`sha256=${hex(64)}`, `sha256=${hex(63)}`, `sha256=${"z".repeat(64)}`, "sha256=", hex(64), big("sha256="), `sha1=${hex(40)}`]);
      else if (name === "x-shopify-hmac-sha256") value = pick([b64(32), b64(31), "!!!!", "", big(""), hex(64)]);
      else if (name === "x-slack-signature") value = pick([`v0=${hex(64)}`, `v0=${hex(10)}`, "v0=", `v1=${hex(64)}`, big("v0=")]);
      else if (name === "x-sig") value = pick([hex(64), hex(40), b64(32), "", big(""), `sha256=${hex(64)}`, "zz"]);
      else value = pick([hex(16), "", "x".repeat(300), "a\tb", "ä", "../..", "'\";--", `evt_${hex(8)}`]); // ids, event types
      headers[name] = value;
    }
    return headers;
  }

  function ingestRequest(): FuzzRequest {
    const providers = Object.keys(targets.endpoints);
    const provider = pick(providers);
    const roll = random();
    let id = targets.endpoints[provider]!;
    if (roll < 0.1) id = fakeId("ep");
    else if (roll < 0.2) id = encodedNasty();
    const method = chance(0.05) ? pick(["GET", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"]) : "POST";
    const headers: Record<string, string> = { "content-type": pick(CONTENT_TYPES) };
    let body: Body = chance(0.5) ? JSON.stringify(jsonValue()) : pick([...BAD_JSON, ...INVALID_UTF8, nested(), "", '{"type":"url_verification","challenge":"x"}', '{"id":"evt_1","type":"invoice.paid"}']);
    let mayDrop = false;
    if (provider === "none" && id === targets.endpoints.none && method === "POST") {
      // `none` stores whatever comes: only requests it must refuse — an unstorable event id or a body over its limit.
      if (chance(0.5)) headers[pick(["webhook-id", "idempotency-key"])] = pick(["x".repeat(256), "a\tb", "\u00e4".repeat(300), "tab\there"]);
      else {
        body = pick([OVER_INGEST_LIMIT, HUGE_INGEST]);
        mayDrop = body === HUGE_INGEST;
      }
    } else {
      Object.assign(headers, signatureHeaders(provider));
      if (chance(0.05)) {
        body = pick([OVER_INGEST_LIMIT, HUGE_INGEST]);
        mayDrop = body === HUGE_INGEST;
      }
    }
    if (method === "GET" || method === "HEAD") return { via: "fetch", family: `ingest ${method}`, method, path: `/in/${id}`, headers };
    return { via: "fetch", family: `ingest ${method} ${provider}${id === targets.endpoints[provider] ? "" : " (bad id)"}`, method, path: `/in/${id}${chance(0.1) ? query() : ""}`, headers, body, mayDrop };
  }

  const host = new URL(targets.baseUrl).host;
  function rawRequest(): FuzzRequest {
    // Never the `none` endpoint: it stores whatever parses as HTTP, and some of these do.
    const signed = Object.entries(targets.endpoints).filter(([provider]) => provider !== "none").map(([, id]) => id);
    const target = chance(0.5) ? `/in/${pick(signed)}` : pick(["/api/v1/endpoints", "/api/v1/deliveries?q=x", `/api/v1/endpoints/${realEndpoint()}`]);
    const auth = `Authorization: Bearer ${targets.apiKey}\r\n`;
    const head = (line: string, extra = "", body = "") => Buffer.from(`${line}\r\nHost: ${host}\r\n${auth}${extra}Connection: close\r\n\r\n${body}`, "latin1");
    const post = `POST ${target} HTTP/1.1`;
    const cases: Array<[string, () => Buffer]> = [
      ["header flood (1,000 headers)", () => head(post, Array.from({ length: 1000 }, (_, i) => `X-F${i}: ${hex(8)}\r\n`).join(""), "")],
      ["header flood (3,000 headers)", () => head(post, Array.from({ length: 3000 }, (_, i) => `X-F${i}: v\r\n`).join(""))],
      ["huge header (40 KB)", () => head(post, `X-Huge: ${"h".repeat(40_000)}\r\n`)],
      ["huge signature (12 KB)", () => head(post, `Stripe-Signature: t=1,v1=${"a".repeat(12_000)}\r\nWebhook-Signature: v1,${"b".repeat(4000)}\r\nContent-Length: 2\r\n`, "{}")],
      ["invalid UTF-8 in the path", () => Buffer.concat([Buffer.from("POST /in/"), Buffer.from([0xff, 0xfe, 0xc3, 0x28]), Buffer.from(` HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`)])],
      ["invalid UTF-8 in header values", () => Buffer.concat([Buffer.from(`${post}\r\nHost: ${host}\r\n${auth}Webhook-Id: `), Buffer.from([0xff, 0xc3, 0x28]), Buffer.from("\r\nStripe-Signature: t=1,v1="), Buffer.from([0xe9, 0xff]), Buffer.from("\r\nX-Shopify-Hmac-Sha256: "), Buffer.from([0xc3, 0x28]), Buffer.from("\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")])],
      ["control character in a header value", () => head(post, "X-Ctl: a\x01b\r\nContent-Length: 0\r\n")],
      ["two Content-Lengths", () => head(post, "Content-Length: 2\r\nContent-Length: 5\r\n", "{}")],
      ["Content-Length and chunked", () => head(post, "Content-Length: 2\r\nTransfer-Encoding: chunked\r\n", "0\r\n\r\n")],
      ["bad chunk size", () => head(post, "Transfer-Encoding: chunked\r\nContent-Type: application/json\r\n", "zz\r\n{}\r\n0\r\n\r\n")],
      ["huge chunk size", () => head(post, "Transfer-Encoding: chunked\r\n", "ffffffffffffffff\r\n{}\r\n0\r\n\r\n")],
      ["declared 2 MiB, sent 2 bytes", () => head(post, "Content-Length: 2097152\r\n", "{}")],
      ["declared 0, sent a body", () => head(post, "Content-Length: 0\r\n", '{"name":"x"}')],
      ["negative Content-Length", () => head(post, "Content-Length: -1\r\n", "{}")],
      ["non-numeric Content-Length", () => head(post, "Content-Length: abc\r\n", "{}")],
      ["absolute-form URI", () => head(`POST http://evil.example${target} HTTP/1.1`, "Content-Length: 2\r\n", "{}")],
      ["unknown method", () => head(`FUZZ ${target} HTTP/1.1`)],
      ["HTTP/1.0 without Host", () => Buffer.from(`POST ${target} HTTP/1.0\r\nContent-Length: 2\r\n\r\n{}`)],
      ["HTTP/2 preface", () => Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")],
      ["bare LF line ends", () => Buffer.from(`POST ${target} HTTP/1.1\nHost: ${host}\nContent-Length: 2\nConnection: close\n\n{}`)],
      ["obs-fold header", () => head(post, "X-Folded: a\r\n b\r\nContent-Length: 0\r\n")],
      ["Expect: 100-continue then body", () => head(post, "Expect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: 2\r\n", "{}")],
      ["path traversal", () => head(`GET /api/v1/../v1/endpoints/..%2f..%2fetc HTTP/1.1`)],
      ["very long URL (20 KB)", () => head(`GET /api/v1/deliveries?q=${"q".repeat(20_000)} HTTP/1.1`)],
      ["garbage", () => Buffer.from(Array.from({ length: 200 }, () => int(256)))],
    ];
    const [name, make] = pick(cases);
    return { via: "raw", family: `raw: ${name}`, bytes: make() };
  }

  /** Slow senders: a body (or the head) dribbled out, then abandoned after a short deadline. */
  function slowRequest(index: number): FuzzRequest {
    const ingest = index % 2 === 0;
    const target = ingest ? `/in/${targets.endpoints.stripe}` : "/api/v1/endpoints";
    const headOnly = index % 3 === 0;
    const head = `POST ${target} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${targets.apiKey}\r\nStripe-Signature: t=1,v1=${hex(64)}\r\nContent-Type: application/json\r\n${headOnly ? "X-Slow: " : "Content-Length: 4000\r\n\r\n{\"a\":\""}`;
    return { via: "raw", family: headOnly ? "slow: head never finished" : `slow: body dribbled (${ingest ? "ingest" : "rest"})`, bytes: Buffer.from(head), dribbleMs: 1500 };
  }

  /** Form posts to pages, as a browser without JavaScript or a forged server-action call would send them. */
  function pagePost(): FuzzRequest {
    const headers: Record<string, string> = { "content-type": pick(["multipart/form-data; boundary=x", "multipart/form-data", "application/x-www-form-urlencoded", "text/plain;charset=UTF-8", "application/json"]) };
    if (chance(0.5)) headers["next-action"] = pick([hex(42), "00deadbeef", "", "x".repeat(300), encodedNasty()]);
    const body = pick(["--x\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nb\r\n--x--\r\n", "--x\r\n\r\n", "[[[[", "%ZZ=%%&a", '["$K1"]', "", ...BAD_JSON, ...INVALID_UTF8]);
    return { via: "fetch", family: "page POST (form or server action)", method: "POST", path: pick(["/", "/login", "/signup", "/overview", "/deliveries", `/endpoints/${realEndpoint()}`, "/nothing/here", "/api/v1/endpoints/a/b/c"]), headers, body };
  }

  return {
    next(index: number): FuzzRequest {
      const roll = random();
      if (roll < 0.45) return ingestRequest();
      if (roll < 0.9) return restRequest();
      if (roll < 0.93) return pagePost();
      return rawRequest();
    },
    slowRequest,
  };
}

const MiB = 1024 * 1024;
/** Over the REST API's 1 MiB. */
const HUGE_REST = new Uint8Array(MiB + 1024).fill(0x20);
/** Over the fuzzed endpoints' maxBodyBytes (4 KiB). */
const OVER_INGEST_LIMIT = "x".repeat(4097);
/** Far over it. */
const HUGE_INGEST = new Uint8Array(512 * 1024).fill(0x7b);
