import { describe, expect, it } from "vitest";
import { newNamespaceId } from "../../../src/domain/placement/ids.js";
import { WORK_STATES } from "../../../src/queue/work-items.js";
import { AUDIT_EVENT_KINDS, AUDIT_OUTCOMES } from "../../../src/domain/control-plane/vocabulary.js";
import { checkLiterals, migratedPgliteForFile, refusal, unique } from "../../harness/pglite.js";

const db = await migratedPgliteForFile();

/** control-plane.md §3, verbatim. */
const SPEC_ACTIONS = ["create", "read", "update", "delete", "deploy", "operate", "administer"];
const SPEC_KINDS = [
  "installation",
  "namespace",
  "configuration",
  "secret",
  "service_account",
  "agent",
  "agent_revision",
];

async function principal(name = unique("p")): Promise<string> {
  const id = `prn_${unique("p")}`;
  await db.query("INSERT INTO principals (id, kind, name) VALUES ($1, 'user', $2)", [id, name]);
  return id;
}

async function role(): Promise<string> {
  const id = `role_${unique("r")}`;
  await db.query("INSERT INTO roles (id, name) VALUES ($1, $2)", [id, unique("role")]);
  return id;
}

describe("vocabularies agree with the schema", () => {
  it("permission actions and kinds are exactly the spec's (domains)", async () => {
    expect(await checkLiterals(db, "permission_action_check")).toEqual([...SPEC_ACTIONS].sort());
    expect(await checkLiterals(db, "permission_kind_check")).toEqual([...SPEC_KINDS].sort());
  });
  it("work states", async () => {
    expect(await checkLiterals(db, "work_items_state")).toEqual([...WORK_STATES].sort());
  });
  it("audit kinds and outcomes", async () => {
    expect(await checkLiterals(db, "audit_events_kind")).toEqual([...AUDIT_EVENT_KINDS].sort());
    expect(await checkLiterals(db, "audit_events_outcome")).toEqual([...AUDIT_OUTCOMES].sort());
  });
});

describe("installation", () => {
  it("holds exactly one row", async () => {
    await db.query("INSERT INTO installation (id) VALUES ('inst_one')");
    expect(
      (await refusal(db.query("INSERT INTO installation (id) VALUES ('inst_two')"))).code,
    ).toBe("23505");
    expect(
      await refusal(db.query("INSERT INTO installation (singleton, id) VALUES (false, 'inst_x')")),
    ).toEqual({ code: "23514", constraint: "installation_singleton" });
  });
});

describe("IAM tables", () => {
  it("principal names are unique among live principals only", async () => {
    const name = unique("alice");
    const first = await principal(name);
    expect((await refusal(principal(name))).constraint).toBe("principals_live_name");
    await db.query("UPDATE principals SET deleted_at = now() WHERE id = $1", [first]);
    await principal(name);
  });

  it("a role holds permissions from the closed vocabulary only", async () => {
    const r = await role();
    const grant = (action: string, kind: string) =>
      db.query("INSERT INTO role_permissions (role_id, action, kind) VALUES ($1, $2, $3)", [
        r,
        action,
        kind,
      ]);
    await grant("administer", "installation");
    expect(await refusal(grant("own", "namespace"))).toEqual({
      code: "23514",
      constraint: "permission_action_check",
    });
    expect(await refusal(grant("read", "cluster"))).toEqual({
      code: "23514",
      constraint: "permission_kind_check",
    });
  });

  it("binds a principal to a role once per scope, Installation-wide included (NULLS NOT DISTINCT)", async () => {
    const p = await principal();
    const r = await role();
    const ns = newNamespaceId();
    await db.query("INSERT INTO namespaces (id, name, placement_mode) VALUES ($1, $2, 'managed')", [
      ns,
      unique("n"),
    ]);
    const bind = (id: string, scope: string | null): Promise<unknown> =>
      db.query(
        "INSERT INTO bindings (id, principal_id, role_id, namespace_id) VALUES ($1, $2, $3, $4)",
        [`bnd_${id}`, p, r, scope],
      );
    await bind(unique("b"), null);
    await bind(unique("b"), ns);
    expect(await refusal(bind(unique("b"), null))).toEqual({
      code: "23505",
      constraint: "bindings_unique",
    });
    expect(await refusal(bind(unique("b"), ns))).toEqual({
      code: "23505",
      constraint: "bindings_unique",
    });
    expect((await refusal(bind(unique("b"), "ns_missing"))).code).toBe("23503");
  });

  it("refuses a restriction that would match every request of everyone", async () => {
    expect(
      await refusal(db.query("INSERT INTO restrictions (id) VALUES ($1)", [`rst_${unique("r")}`])),
    ).toEqual({ code: "23514", constraint: "restrictions_not_universal" });
    await db.query("INSERT INTO restrictions (id, action) VALUES ($1, 'delete')", [
      `rst_${unique("r")}`,
    ]);
  });

  it.each([
    ["a hash that is not SHA-256 hex", { secret_sha256: "abc" }, "api_keys_secret_sha256_format"],
    ["a short prefix", { prefix: "occ_1" }, "api_keys_prefix_format"],
    ["an expiry before creation", { expires_at: new Date(0) }, "api_keys_expiry_after_creation"],
  ])("refuses an API key with %s", async (_, override, constraint) => {
    const p = await principal();
    const row = {
      id: `key_${unique("k")}`,
      principal_id: p,
      prefix: `occ_${unique("prefix").replace("-", "")}`,
      secret_sha256: "a".repeat(64),
      ...override,
    };
    const cols = Object.keys(row);
    expect(
      await refusal(
        db.query(
          `INSERT INTO api_keys (${cols.join(", ")}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(", ")})`,
          Object.values(row),
        ),
      ),
    ).toEqual({ code: "23514", constraint });
  });
});

describe("audit_events", () => {
  const insert = (kind: string, outcome: string): Promise<unknown> =>
    db.query(
      `INSERT INTO audit_events (kind, actor, action, resource_kind, outcome)
       VALUES ($1, 'prn_a', 'namespaces.create', 'namespace', $2)`,
      [kind, outcome],
    );

  it.each([
    ["authorization_denial", "success"],
    ["mutation", "denied"],
    ["lifecycle", "denied"],
  ])("refuses kind %s with outcome %s", async (kind, outcome) => {
    expect(await refusal(insert(kind, outcome))).toEqual({
      code: "23514",
      constraint: "audit_events_denial_outcome",
    });
  });

  it("is append-only: UPDATE, DELETE and TRUNCATE are refused", async () => {
    await insert("mutation", "success");
    for (const sql of [
      "UPDATE audit_events SET actor = 'prn_b'",
      "DELETE FROM audit_events",
      "TRUNCATE audit_events",
    ]) {
      expect(await refusal(db.query(sql))).toMatchObject({ code: "42501" });
    }
    const n = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM audit_events");
    expect(n.rows[0]?.n).toBeGreaterThan(0);
  });

  it("refuses details that are not an object", async () => {
    expect(
      await refusal(
        db.query(
          `INSERT INTO audit_events (kind, actor, action, resource_kind, outcome, details)
           VALUES ('mutation', 'prn_a', 'namespaces.create', 'namespace', 'success', '[1]')`,
        ),
      ),
    ).toEqual({ code: "23514", constraint: "audit_events_details_object" });
  });
});

describe("work_items", () => {
  /** A work item's INSERT: a valid row, with `values` replacing or adding columns (SQL text). */
  const insertItem = (values: Readonly<Record<string, string>> = {}) => {
    const row: Record<string, string> = {
      idempotency_key: "$1",
      kind: "'k'",
      subject: "'s'",
      actor: "'a'",
      max_attempts: "5",
      available_at: "now()",
      deadline_at: "now()",
      created_at: "now()",
      updated_at: "now()",
      ...values,
    };
    const columns = Object.keys(row).join(", ");
    return `INSERT INTO work_items (${columns}) VALUES (${Object.values(row).join(", ")})`;
  };
  // One case a line: what the item holds | the columns it sets (SQL) | the rule that refuses it.
  const cases = `
    claimed without a token | state='claimed' | work_items_claim_consistent
    succeeded without finished_at | state='succeeded' | work_items_finished_consistent
    a kind outside the format | kind='Kind' | work_items_kind_format
    no attempt budget | max_attempts=0 | work_items_max_attempts
    a deadline before creation | deadline_at=now() - interval '1 s' | work_items_deadline_after_creation
    an empty actor | actor='' | work_items_actor_length
    an empty subject | subject='' | work_items_subject_length
    a negative attempt count | attempt_count=-1 | work_items_attempt_count
    a negative pending count | pending_count=-1 | work_items_pending_count
    a lowercase last code | last_code='oops' | work_items_last_code_format
    a last message over 256 characters | last_message='${"m".repeat(257)}' | work_items_last_message_length
    an empty claimer | state='claimed', claim_token=gen_random_uuid(), claimed_by='', lease_expires_at=now() | work_items_claimed_by_length`
    .trim()
    .split("\n")
    .map((line) => {
      const [what = "", sets = "", rule = ""] = line.split(" | ").map((f) => f.trim());
      const values = Object.fromEntries(
        sets
          .split(", ")
          .map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
      );
      return [what, values, rule] as const;
    });
  it.each(cases)("refuses an item %s", async (_, values, constraint) => {
    expect(await refusal(db.query(insertItem(values), [unique("key")]))).toEqual({
      code: "23514",
      constraint,
    });
  });

  it("refuses an empty idempotency key", async () => {
    expect(await refusal(db.query(insertItem({ idempotency_key: "''" })))).toEqual({
      code: "23514",
      constraint: "work_items_idempotency_key_length",
    });
  });

  it("holds the rules on update as well as on insert (0015: a trigger, not a CHECK)", async () => {
    const key = unique("key");
    await db.query(insertItem(), [key]);
    const set = (sql: string) =>
      refusal(db.query(`UPDATE work_items SET ${sql} WHERE idempotency_key = $1`, [key]));
    expect(await set("attempt_count = -1")).toEqual({
      code: "23514",
      constraint: "work_items_attempt_count",
    });
    expect(await set("state = 'succeeded'")).toEqual({
      code: "23514",
      constraint: "work_items_finished_consistent",
    });
    expect(await set("state = 'done'")).toEqual({ code: "23514", constraint: "work_items_state" });
  });
});

describe("work_items indexes", () => {
  it("deduplicating a pass request finds the subject's queued item by index (0010), not by scanning the queue", async () => {
    // The statement of src/work/namespace-pass-request.ts; a sequential scan is made the
    // planner's last resort so the small table's plan shows which index serves the lookup.
    const plan = await db.transaction(async (tx) => {
      await tx.query("SET LOCAL enable_seqscan = off");
      return tx.query<{ "QUERY PLAN": string }>(
        `EXPLAIN UPDATE work_items SET available_at = LEAST(available_at, now()), updated_at = now()
         WHERE subject = 'namespace:ns_x' AND kind = 'namespace.ensure' AND state = 'queued'`,
      );
    });
    const text = plan.rows.map((r) => r["QUERY PLAN"]).join("\n");
    expect(text).toContain("work_items_queued_subject");
    expect(text).toMatch(/Index Cond: \(\(subject = 'namespace:ns_x'::text\)/);
  });
});
