/**
 * R1 (quality.md §3) on a real PostgreSQL server, through real HTTP: 50 simultaneous
 * `POST /namespaces` selecting the same existing namespace yield exactly one 201, 49 × 409 and
 * one row — decided by the partial unique index, not by a read-then-write in the API. The same
 * holds for 50 requests racing for one name. A failed Namespace keeps its claim; only the
 * tombstone releases it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer, type RunningServer } from "../../../src/api/server.js";
import { isServerNamespaceId } from "../../../src/domain/placement/ids.js";
import type { Db } from "../../../src/store/db.js";
import {
  applyProvisioningOutcome,
  applyTeardownOutcome,
} from "../../../src/store/namespace-outcomes.js";
import { markNamespaceDeleting } from "../../../src/store/namespaces.js";
import { createBootstrappedDatabase } from "../../harness/db.js";

const CONCURRENCY = 50;

let db: Db;
let drop: () => Promise<void>;
let server: RunningServer;
let adminKey: string;

beforeAll(async () => {
  ({
    db,
    drop,
    apiKey: adminKey,
  } = await createBootstrappedDatabase({ max: 20, controllerNamespace: "occ-system" }));
  server = await startApiServer({ db, controllerNamespace: "occ-system", port: 0 });
});

afterAll(async () => {
  await server.close();
  await drop();
});

interface Answer {
  readonly status: number;
  readonly body: { data?: { id: string }; error?: { code: string; message: string } };
}

async function post(body: object): Promise<Answer> {
  const res = await fetch(`${server.url}/namespaces`, {
    method: "POST",
    headers: { authorization: `Bearer ${adminKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Answer["body"] };
}

/** Fires all requests at once: every request is sent before any answer is awaited. */
function race(bodies: readonly object[]): Promise<Answer[]> {
  return Promise.all(bodies.map((b) => post(b)));
}

describe("R1: simultaneous creates on real PostgreSQL", () => {
  it(`${CONCURRENCY} POSTs selecting one existing namespace: one 201, the rest 409, one row`, async () => {
    const answers = await race(
      Array.from({ length: CONCURRENCY }, (_, i) => ({
        name: `race-${i}`,
        existingNamespace: "team-race",
      })),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(CONCURRENCY - 1);
    for (const a of answers.filter((x) => x.status === 409)) {
      expect(a.body.error?.code).toBe("RESOURCE_CONFLICT");
    }
    const winner = answers.find((a) => a.status === 201)?.body.data?.id;

    const rows = await db.query<{ id: string }>(
      "SELECT id FROM namespaces WHERE existing_namespace = 'team-race'",
    );
    expect(rows.rows).toEqual([{ id: winner }]);
    const work = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM work_items WHERE subject = $1",
      [`namespace:${winner ?? ""}`],
    );
    expect(work.rows).toEqual([{ n: 1 }]);
    const events = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM audit_events
       WHERE action = 'namespaces.create' AND details->>'existingNamespace' = 'team-race'`,
    );
    expect(events.rows).toEqual([{ n: 1 }]);
    const losers = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM namespaces WHERE name LIKE 'race-%'",
    );
    expect(losers.rows).toEqual([{ n: 1 }]);
  });

  it(`${CONCURRENCY} POSTs for one name: one 201, the rest 409 naming the conflict`, async () => {
    const answers = await race(Array.from({ length: CONCURRENCY }, () => ({ name: "contested" })));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    const refused = answers.filter((a) => a.status === 409);
    expect(refused).toHaveLength(CONCURRENCY - 1);
    for (const a of refused) {
      expect(a.body.error?.message).toBe("A Namespace with this name already exists");
    }
    const rows = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM namespaces WHERE name = 'contested'",
    );
    expect(rows.rows).toEqual([{ n: 1 }]);
  });

  it("a failed Namespace still holds its claim; the tombstone releases it", async () => {
    const first = await post({ name: "held-1", existingNamespace: "team-held" });
    expect(first.status).toBe(201);
    const id = first.body.data?.id;
    if (!isServerNamespaceId(id)) throw new Error("no id");
    await applyProvisioningOutcome(db, id, {
      to: "failed",
      reason: { code: "KUBERNETES_NAMESPACE_MISSING", message: "the namespace does not exist" },
    });
    expect((await post({ name: "held-2", existingNamespace: "team-held" })).status).toBe(409);
    await markNamespaceDeleting(db, id);
    expect((await post({ name: "held-3", existingNamespace: "team-held" })).status).toBe(409);
    await applyTeardownOutcome(db, id, { to: "tombstoned" });
    const answers = await race(
      Array.from({ length: 10 }, (_, i) => ({
        name: `held-after-${i}`,
        existingNamespace: "team-held",
      })),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
  });
});
