import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newNamespaceId, type NamespaceId } from "../../../src/domain/index.js";
import { OwnWrites } from "../../../src/drivers/kubernetes/watch/own-writes.js";
import type { TenantTouch } from "../../../src/drivers/kubernetes/watch/watch-set.js";
import { touchBatcher } from "../../../src/main/watch-triggers.js";
import type { Db } from "../../../src/store/db.js";
import { openMigratedPglite } from "../../harness/pglite.js";

let db: Db;
const a = newNamespaceId();
const b = newNamespaceId();
beforeAll(async () => {
  db = await openMigratedPglite();
  for (const [id, name] of [
    [a, "tenant-a"],
    [b, "tenant-b"],
  ] as const) {
    await db.query("INSERT INTO namespaces (id, name, placement_mode) VALUES ($1, $2, 'managed')", [
      id,
      name,
    ]);
  }
});
afterAll(async () => {
  await db.close();
});

const touch = (tenant: NamespaceId, resourceVersion: string | null): TenantTouch => ({
  namespace: `occ-${tenant}`,
  tenant,
  version:
    resourceVersion === null
      ? null
      : {
          kind: "NetworkPolicy",
          namespace: `occ-${tenant}`,
          name: "default-deny",
          resourceVersion,
        },
});

function batcher(own: OwnWrites, delayMs = 50) {
  const requested: NamespaceId[][] = [];
  const b = touchBatcher({
    db,
    logger: pino({ level: "silent" }),
    requestPasses: (ids) => {
      requested.push([...ids]);
      return Promise.resolve();
    },
    isEcho: (t) => own.consume(t.version),
    delayMs,
  });
  return { b, requested };
}

describe("touchBatcher with own-write echoes", () => {
  it("drops the echo of our write and queues the tenant of every other change", async () => {
    const own = new OwnWrites();
    own.record({
      kind: "NetworkPolicy",
      namespace: `occ-${a}`,
      name: "default-deny",
      resourceVersion: "10",
    });
    const { b: t, requested } = batcher(own);
    t.touch(touch(a, "10")); // our write's echo
    t.touch(touch(b, "10")); // the same version number elsewhere: not ours
    await t.flush();
    expect(requested).toEqual([[b]]);

    t.touch(touch(a, "11")); // a foreign change after ours
    await t.flush();
    t.touch(touch(a, null)); // a delete
    await t.flush();
    expect(requested).toEqual([[b], [a], [a]]);
  });

  it("judges a touch once it is the batch delay old: a write recorded after its event still counts", async () => {
    const own = new OwnWrites();
    const { b: t, requested } = batcher(own, 40);
    t.touch(touch(a, "20")); // the event arrives first …
    own.record({
      kind: "NetworkPolicy",
      namespace: `occ-${a}`,
      name: "default-deny",
      resourceVersion: "20",
    });
    await new Promise((r) => setTimeout(r, 200)); // … the batch goes out on its own timer
    expect(requested).toEqual([]);
    t.touch(touch(a, "21"));
    await new Promise((r) => setTimeout(r, 200));
    expect(requested).toEqual([[a]]);
    await t.stop();
  });
});
