/**
 * Test harness for the API unit tests: a migrated, bootstrapped PGlite database and the app
 * built on it, driven with `inject`. Helpers create principals with exactly the permissions a
 * test needs, through the IAM routes as the bootstrap administrator.
 */
import { isServerNamespaceId, type NamespaceId } from "../../src/domain/placement/ids.js";
import type { Static, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import pino from "pino";
import { afterAll } from "vitest";
import type { Registry } from "prom-client";
import { buildApp, type OccApp } from "../../src/api/app.js";
import type { AuthRuntime } from "../../src/services/signin/runtime.js";
import { IssuedApiKeySchema, PrincipalSchema, RoleSchema } from "../../src/contract/iam.js";
import { registerFormats } from "../../src/contract/formats.js";
import { NamespaceSchema } from "../../src/contract/namespaces.js";
import {
  DataEnvelope,
  ErrorEnvelopeSchema,
  PageEnvelope,
  type ErrorEnvelope,
} from "../../src/contract/envelopes.js";
import type { ComputeSelection } from "../../src/services/compute-selection.js";
import type { NamespaceContentCheck } from "../../src/services/namespaces/contents.js";
import type { NamespaceServiceDeps } from "../../src/services/namespaces/deps.js";
import { namespaceQueueConfig } from "../../src/work/namespace-work.js";
import { bootstrap } from "../../src/services/bootstrap.js";
import type { Permission } from "../../src/domain/iam/vocabulary.js";
import type { Db, Queryable } from "../../src/store/db.js";
import { faulty, type FaultyDb } from "./faulty-db.js";
import { openMigratedPglite } from "./pglite.js";

export const CONTROLLER_NAMESPACE = "occ-system";

export interface ApiFixture {
  readonly raw: Db;
  readonly db: FaultyDb;
  readonly app: OccApp;
  readonly adminId: string;
  readonly adminKey: string;
  /** The Namespace bootstrap created. */
  readonly defaultNamespaceId: NamespaceId;
  readonly deps: NamespaceServiceDeps;
  /** Every log line the app wrote. */
  readonly logs: string[];
  close(): Promise<void>;
}

export interface FixtureOptions {
  readonly compute?: ComputeSelection;
  readonly contentChecks?: readonly NamespaceContentCheck[];
  readonly registry?: Registry;
  /** Run in the preprovisioned profile, bound to the Namespace bootstrap created. */
  readonly preprovisionDefaultNamespace?: boolean;
  /** The app's request timeout (default the app's 30 s). */
  readonly requestTimeoutMs?: number;
  /** Sign-in settings and tunables (default the app's development settings). */
  readonly auth?: AuthRuntime;
}

export async function startApi(opts: FixtureOptions = {}): Promise<ApiFixture> {
  const raw = await openMigratedPglite();
  const db = faulty(raw);
  const deps: NamespaceServiceDeps = {
    db,
    queue: namespaceQueueConfig(),
    compute: opts.compute ?? { source: "bundled", name: "kubernetes" },
    controllerNamespace: CONTROLLER_NAMESPACE,
    contentChecks: opts.contentChecks ?? [],
  };
  const boot = await bootstrap(deps);
  if (boot.apiKey === null) throw new Error("bootstrap issued no key on a fresh database");
  const logs: string[] = [];
  const logger = pino({ level: "trace" }, { write: (line: string) => void logs.push(line) });
  const app = await buildApp({
    db,
    controllerNamespace: CONTROLLER_NAMESPACE,
    ...(opts.compute === undefined ? {} : { compute: opts.compute }),
    ...(opts.contentChecks === undefined ? {} : { contentChecks: opts.contentChecks }),
    ...(opts.registry === undefined ? {} : { registry: opts.registry }),
    ...(opts.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: opts.requestTimeoutMs }),
    ...(opts.auth === undefined ? {} : { auth: opts.auth }),
    ...(opts.preprovisionDefaultNamespace === true
      ? { preprovisionedNamespaceId: boot.defaultNamespace.id }
      : {}),
    logger,
  });
  return {
    raw,
    db,
    app,
    adminId: boot.administratorId,
    adminKey: boot.apiKey,
    defaultNamespaceId: boot.defaultNamespace.id,
    deps,
    logs,
    async close() {
      await app.close();
      await raw.close();
    },
  };
}

/** {@link startApi} for one test file: started now, closed after the file's tests. */
export async function apiForFile(opts: FixtureOptions = {}): Promise<ApiFixture> {
  const fx = await startApi(opts);
  afterAll(() => fx.close());
  return fx;
}

export interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | number | undefined>;
  /** Parsed JSON, or `undefined` when the body is not JSON. */
  readonly body: unknown;
  readonly text: string;
}

export async function call(
  app: OccApp,
  method: "GET" | "POST" | "DELETE" | "PUT" | "PATCH" | "HEAD" | "OPTIONS",
  url: string,
  opts: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const res = await app.inject({
    method,
    url,
    headers: {
      ...(opts.key === undefined ? {} : { authorization: `Bearer ${opts.key}` }),
      ...opts.headers,
    },
    ...(opts.body === undefined ? {} : { payload: opts.body as string | object }),
  });
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    body = undefined;
  }
  return { status: res.statusCode, headers: res.headers, body, text: res.body };
}

registerFormats();

/** The `data` of a success body, checked against `schema` (so shapes are asserted too). */
export function dataOf<T extends TSchema>(reply: Reply, schema: T): Static<T> {
  const envelope: TSchema = DataEnvelope(schema);
  const body: unknown = reply.body;
  if (!Value.Check(envelope, body)) {
    throw new Error(`not a data envelope (${reply.status}): ${reply.text}`);
  }
  return (body as { data: Static<T> }).data;
}

/** The items and cursor of a page body, checked against `item`. */
export function pageOf<T extends TSchema>(
  reply: Reply,
  item: T,
): { items: Static<T>[]; nextCursor: string | null } {
  const envelope: TSchema = PageEnvelope(item);
  const body: unknown = reply.body;
  if (!Value.Check(envelope, body)) {
    throw new Error(`not a page envelope (${reply.status}): ${reply.text}`);
  }
  const page = body as { data: Static<T>[]; meta: { nextCursor: string | null } };
  return { items: page.data, nextCursor: page.meta.nextCursor };
}

/** The error envelope of a failure body; throws when the body is not one. */
export function errorOf(reply: Reply): ErrorEnvelope {
  const body: unknown = reply.body;
  if (!Value.Check(ErrorEnvelopeSchema, body)) {
    throw new Error(`not an error envelope (${reply.status}): ${reply.text}`);
  }
  return body;
}

/**
 * Creates a principal holding `permissions` (one new role), bound Installation-wide or in
 * `namespaceId`, and returns its ID and a key — all through the API as the administrator.
 */
export async function principalWith(
  fx: ApiFixture,
  name: string,
  permissions: readonly Permission[],
  namespaceId?: string,
): Promise<{ id: string; key: string }> {
  const admin = fx.adminKey;
  const p = await call(fx.app, "POST", "/principals", { key: admin, body: { kind: "user", name } });
  if (p.status !== 201) throw new Error(`principal: ${p.status} ${p.text}`);
  const id = dataOf(p, PrincipalSchema).id;
  if (permissions.length > 0) {
    const role = await call(fx.app, "POST", "/roles", {
      key: admin,
      body: { name: `role-of-${name}`, permissions },
    });
    if (role.status !== 201) throw new Error(`role: ${role.status} ${role.text}`);
    const binding = await call(fx.app, "POST", "/bindings", {
      key: admin,
      body: {
        principalId: id,
        roleId: dataOf(role, RoleSchema).id,
        namespaceId: namespaceId ?? null,
      },
    });
    if (binding.status !== 201) throw new Error(`binding: ${binding.status} ${binding.text}`);
  }
  const key = await call(fx.app, "POST", `/principals/${id}/api-keys`, { key: admin, body: {} });
  if (key.status !== 201) throw new Error(`key: ${key.status} ${key.text}`);
  return { id, key: dataOf(key, IssuedApiKeySchema).key };
}

/** Row counts of the tables a refused request must leave untouched. */
export interface Counts {
  readonly namespaces: number;
  readonly work_items: number;
  readonly mutations: number;
  readonly denials: number;
}

export async function counts(q: Queryable): Promise<Counts> {
  const res = await q.query<Counts>(
    `SELECT (SELECT count(*)::int FROM namespaces) AS namespaces,
            (SELECT count(*)::int FROM work_items) AS work_items,
            (SELECT count(*)::int FROM audit_events WHERE kind = 'mutation') AS mutations,
            (SELECT count(*)::int FROM audit_events WHERE kind = 'authorization_denial') AS denials`,
  );
  const row = res.rows[0];
  if (row === undefined) throw new Error("counts: no row");
  return row;
}

/** The request ID a reply carries. */
export function requestIdOf(reply: Reply): string {
  const id = reply.headers["x-request-id"];
  if (typeof id !== "string") throw new Error("reply without x-request-id");
  return id;
}

/** `POST /namespaces` as the administrator; returns the new Namespace's (server-issued) ID. */
export async function createNamespace(fx: ApiFixture, name: string): Promise<NamespaceId> {
  const r = await call(fx.app, "POST", "/namespaces", { key: fx.adminKey, body: { name } });
  const id = dataOf(r, NamespaceSchema).id;
  if (!isServerNamespaceId(id)) throw new Error(`bad id ${id}`);
  return id;
}
