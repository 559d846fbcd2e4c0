import { describe, expect, it } from "vitest";
import { takeLook, type ParkedLook } from "./destination-slots";

const look = (over: Partial<ParkedLook>): ParkedLook => ({ needed: false, orgWaiting: [], organizationId: "org_1", ...over });

describe("takeLook", () => {
  it("tells only the first of an endpoint's callers in a batch to hand slots on", () => {
    const looks = new Map<string, ParkedLook>([
      ["ep_a", look({ needed: true })],
      ["ep_b", look({})],
    ]);
    expect(takeLook(looks, "ep_a")).toEqual(look({ needed: true }));
    expect(takeLook(looks, "ep_a")).toEqual(look({}));
    expect(takeLook(looks, "ep_a")).toEqual(look({}));
    expect(takeLook(looks, "ep_b")).toEqual(look({}));
  });

  it("gives an organization's waiting endpoints to the first of its callers only, whichever endpoint it finished at", () => {
    const looks = new Map<string, ParkedLook>([
      ["ep_a", look({ orgWaiting: ["ep_w"] })],
      ["ep_b", look({ orgWaiting: ["ep_w"] })],
      ["ep_c", look({ organizationId: "org_2", orgWaiting: ["ep_v"] })],
    ]);
    expect(takeLook(looks, "ep_b").orgWaiting).toEqual(["ep_w"]);
    expect(takeLook(looks, "ep_a").orgWaiting).toEqual([]);
    expect(takeLook(looks, "ep_c").orgWaiting).toEqual(["ep_v"]);
  });
});
