/**
 * A preprovisioned test file's stacks (one per file, started in its beforeAll): a prepared
 * namespace, or that with the test OpenShell gateway, a database and the API; and what tests
 * do with them (record an Agent, POST with a key, expect an ownership refusal).
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect } from "vitest";
import type { OccApp } from "../../../src/api/app.js";
import { insertAgent } from "../../../src/store/agents.js";
import { insertConfiguration } from "../../../src/store/configurations.js";
import {
  newAgentId,
  type DeleteNamespaceResult,
  type EnsureNamespaceResult,
  type NamespaceId,
} from "../../../src/domain/index.js";
import type { Db } from "../../../src/store/db.js";
import { startTestGateway, type TestGateway } from "../../harness/openshell-gateway.js";
import {
  type Prepared,
  bootstrapAndPrepare,
  driverFor,
  passInput,
  prepare,
  profileConfig,
} from "./fixtures.js";

/** A test file's one prepared namespace (see {@link preparedForFile}). */
export interface PreparedFile {
  /** The prepared namespace; set before the file's first test. */
  readonly p: Prepared;
  /** One Compute pass over the bound Namespace, as the worker identity. */
  pass(): Promise<EnsureNamespaceResult>;
}

/**
 * Registers a file's setup: one prepared namespace for all its tests (when `ready`, placed by
 * one pass that must end ready), its clients closed after the file.
 */
export function preparedForFile(opts: { ready?: boolean } = {}): PreparedFile {
  let prepared: Prepared | undefined;
  beforeAll(async () => {
    prepared = await prepare();
    if (opts.ready === true) expect((await file.pass()).outcome).toBe("ready");
  });
  afterAll(() => {
    if (prepared !== undefined) closePrepared(prepared);
  });
  const file: PreparedFile = {
    get p(): Prepared {
      if (prepared === undefined) throw new Error("the prepared namespace is set in beforeAll");
      return prepared;
    },
    pass: () => driverFor(file.p).ensureNamespace(passInput(file.p.id)),
  };
  return file;
}

/** Closes the two identities' clients of {@link prepare}. */
export function closePrepared(p: Prepared): void {
  p.worker.close();
  p.api.close();
}

/** A pass refused permanently as an ownership conflict whose reason names `message`. */
export function expectOwnershipRefusal(
  result: EnsureNamespaceResult | DeleteNamespaceResult,
  message: string,
): void {
  expect(result).toMatchObject({
    outcome: "failed",
    code: "KUBERNETES_OWNERSHIP_CONFLICT",
    retryable: false,
  });
  expect(result.outcome === "failed" && result.reason).toContain(message);
}

/** POSTs `body` to `url` with the API key `key`; the status and the decoded envelope. */
export async function postWithKey(app: OccApp, key: string, url: string, body: object) {
  const res = await app.inject({
    method: "POST",
    url,
    headers: { authorization: `Bearer ${key}` },
    payload: body,
  });
  return {
    status: res.statusCode,
    body: JSON.parse(res.body) as {
      data?: { id: string };
      error?: { code: string; message: string };
    },
  };
}

/** A file's test OpenShell gateway, database and prepared namespace (see gatewayStackForFile). */
export interface GatewayStack {
  readonly gw: TestGateway;
  readonly db: Db;
  /** The database's URL, for a spawned `occ api|worker`. */
  readonly url: string;
  /** The administrator's API key bootstrap issued. */
  readonly apiKey: string;
  /** The bound Namespace: the database's `default` one. */
  readonly id: NamespaceId;
  readonly p: Prepared;
}

/**
 * Registers a file's setup: a test OpenShell gateway, then {@link bootstrapAndPrepare} under
 * {@link profileConfig}(`overrides`) pointed at it; all stopped after the file (after hooks the
 * file registers later, such as stopping its worker, run first).
 */
export function gatewayStackForFile(overrides: Record<string, unknown> = {}): GatewayStack {
  let started: (GatewayStack & { drop(): Promise<void> }) | undefined;
  beforeAll(async () => {
    const gw = await startTestGateway();
    const { db, url, apiKey, drop, id, p } = await bootstrapAndPrepare(
      profileConfig(overrides, gw.endpoint),
    );
    started = { gw, db, url, apiKey, drop, id, p };
  });
  afterAll(async () => {
    if (started === undefined) return;
    await started.gw.stop();
    closePrepared(started.p);
    await started.drop();
  });
  const get = () => {
    if (started === undefined) throw new Error("the gateway stack is started in beforeAll");
    return started;
  };
  return {
    get gw() {
      return get().gw;
    },
    get db() {
      return get().db;
    },
    get url() {
      return get().url;
    },
    get apiKey() {
      return get().apiKey;
    },
    get id() {
      return get().id;
    },
    get p() {
      return get().p;
    },
  };
}

/** An Agent of Namespace `id` (and the Configuration it uses), as the API records them. */
export async function recordAgent(
  db: Db,
  id: NamespaceId,
  namespace: string,
  uid: string,
): Promise<string> {
  const [agentId] = await recordAgents(db, id, namespace, uid, 1);
  if (agentId === undefined) throw new Error("no Agent recorded");
  return agentId;
}

/** `count` Agents `agent-1`… of Namespace `id`, sharing one Configuration: their IDs. */
export async function recordAgents(
  db: Db,
  id: NamespaceId,
  namespace: string,
  uid: string,
  count: number,
): Promise<string[]> {
  const configurationId = `cfg_${randomUUID()}`;
  await insertConfiguration(db, {
    id: configurationId,
    namespaceId: id,
    kind: "agent",
    contentSha256: "0".repeat(64),
    kubernetesNamespace: namespace,
    namespaceUid: uid,
    objectName: "agent-config",
    objectUid: randomUUID(),
    resourceVersion: "1",
  });
  const agentIds: string[] = [];
  for (let n = 1; n <= count; n += 1) {
    const agentId = newAgentId();
    const inserted = await insertAgent(db, {
      id: agentId,
      namespaceId: id,
      name: `agent-${n}`,
      configurationId,
      executionMode: "embedded",
      serviceAccountId: null,
    });
    expect(inserted.outcome).toBe("inserted");
    agentIds.push(agentId);
  }
  return agentIds;
}
