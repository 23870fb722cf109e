/**
 * `POST /namespaces` when the Installation selected a Compute Driver other than the bundled
 * Kubernetes one (control-plane.md §2 steps 3–4, §7): adoption is refused with the spec's 409
 * for administrators, non-administrators still get 403 first, managed placement is unaffected.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADOPTION_REQUIRES_KUBERNETES } from "../../../src/services/compute-selection.js";
import {
  call,
  counts,
  errorOf,
  principalWith,
  startApi,
  type ApiFixture,
} from "../../harness/api-app.js";

const CREATE = { action: "create", kind: "namespace" } as const;

describe("POST /namespaces with another Compute Driver selected", () => {
  let fx: ApiFixture;
  beforeAll(async () => {
    fx = await startApi({ compute: { source: "installed", module: "@example/occ-docker-driver" } });
  });
  afterAll(() => fx.close());

  it("step 4: an administrator selecting an existing namespace gets the spec's 409", async () => {
    const before = await counts(fx.raw);
    const r = await call(fx.app, "POST", "/namespaces", {
      key: fx.adminKey,
      body: { name: "adopt", existingNamespace: "team-a" },
    });
    expect(r.status).toBe(409);
    expect(errorOf(r).error).toEqual({
      code: "RESOURCE_CONFLICT",
      message: ADOPTION_REQUIRES_KUBERNETES,
    });
    expect(await counts(fx.raw)).toEqual(before);
  });

  it("step 3 before step 4: a non-administrator gets 403 although step 4 would refuse too", async () => {
    const creator = await principalWith(fx, "creator", [CREATE]);
    const r = await call(fx.app, "POST", "/namespaces", {
      key: creator.key,
      body: { name: "adopt-2", existingNamespace: "team-a" },
    });
    expect(r.status).toBe(403);
    expect(errorOf(r).error.code).toBe("FORBIDDEN");
  });

  it("managed Namespaces are unaffected by the Compute selection", async () => {
    const r = await call(fx.app, "POST", "/namespaces", {
      key: fx.adminKey,
      body: { name: "managed" },
    });
    expect(r.status).toBe(201);
  });
});
