/**
 * The model's commands on tenants: create, delete, and the tenant's Configurations, Secrets and
 * Agents, through the API processes. Each updates the model with what the spec then expects.
 */
import type { AsyncCommand } from "fast-check";
import { currentManagedName } from "../../src/domain/index.js";
import {
  initialExpectation,
  live,
  pick,
  type Model,
  type Preparation,
  type Real,
} from "./model.js";
import { call, grant, prepareNamespace, untilReady } from "./operator.js";

type Cmd = AsyncCommand<Model, Real>;

const ok = (status: number) => status >= 200 && status < 300;

export class CreateManaged implements Cmd {
  constructor(readonly api: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const res = await call(r.stack, this.api, "POST", "/namespaces", { name: `m-${uid()}` });
    const id = res.body.data?.id;
    if (res.status !== 201 || id === undefined) throw new Error(`create managed: ${res.status}`);
    m.mutations.push({ action: "namespaces.create", resourceId: id });
    m.tenants.push({
      id,
      mode: "managed",
      namespace: currentManagedName(id),
      preparation: "ok",
      granted: true,
      expect: initialExpectation({ mode: "managed", preparation: "ok", granted: true }),
      namespaceDeleted: false,
      deleted: false,
      operatorLabels: {},
      operatorAnnotations: {},
      tampered: false,
      outage: false,
      configurations: [],
      secrets: [],
      agents: [],
      foreign: [],
    });
  }
  toString = () => `createManaged(api${this.api})`;
}

export class CreateExternal implements Cmd {
  constructor(
    readonly api: number,
    readonly preparation: Preparation,
    readonly granted: boolean,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const ns = await prepareNamespace(r.stack, this.preparation);
    const foreign: Model["tenants"][number]["foreign"] = [];
    if (this.granted) {
      foreign.push({ kind: "RoleBinding", name: await grant(r.stack, ns.name), rv: "" });
    }
    const res = await call(r.stack, this.api, "POST", "/namespaces", {
      name: `x-${uid()}`,
      existingNamespace: ns.name,
    });
    const id = res.body.data?.id;
    if (res.status !== 201 || id === undefined) throw new Error(`create external: ${res.status}`);
    m.mutations.push({ action: "namespaces.create", resourceId: id });
    const base = {
      mode: "external",
      preparation: this.preparation,
      granted: this.granted,
    } as const;
    m.tenants.push({
      id,
      ...base,
      namespace: ns.name,
      expect: initialExpectation(base),
      namespaceDeleted: false,
      deleted: false,
      operatorLabels: ns.labels,
      operatorAnnotations: ns.annotations,
      tampered: false,
      outage: false,
      configurations: [],
      secrets: [],
      agents: [],
      foreign,
    });
  }
  toString = () =>
    `createExternal(api${this.api}, ${this.preparation}, ${this.granted ? "granted" : "not granted"})`;
}

/** Deletes a tenant: refused while it holds resources (409 NAMESPACE_NOT_EMPTY), else accepted. */
export class DeleteTenant implements Cmd {
  constructor(
    readonly api: number,
    readonly index: number,
  ) {}
  check = (m: Readonly<Model>) => live(m).length > 0;
  async run(m: Model, r: Real) {
    const t = pick(live(m), this.index);
    if (t === undefined) return;
    const res = await call(r.stack, this.api, "DELETE", `/namespaces/${t.id}`);
    const agents = t.agents.filter((a) => !a.deleted).length;
    const holds = t.configurations.length + t.secrets.length + agents > 0;
    // A deleted Agent is removed by the worker: until then the tenant still holds it.
    const removing = t.agents.length > agents;
    if (removing && res.status === 409 && res.body.error?.code === "NAMESPACE_NOT_EMPTY") return;
    if (holds) {
      if (res.status !== 409 || res.body.error?.code !== "NAMESPACE_NOT_EMPTY") {
        throw new Error(`delete of a non-empty tenant answered ${res.status}, not 409`);
      }
      return;
    }
    if (res.status !== 202) throw new Error(`delete answered ${res.status}`);
    m.mutations.push({ action: "namespaces.delete", resourceId: t.id });
    t.deleted = true;
    // A bound namespace whose markers the operator changed may refuse teardown, and a selected
    // namespace that carries another tenant's marker always does (placement.md §6: "foreign
    // values → permanent failure"; only a namespace with neither marker is left as never bound).
    t.expect =
      t.preparation === "foreign-marker"
        ? ["deleting:failed"]
        : t.tampered
          ? ["gone", "deleting:failed"]
          : ["gone"];
  }
  toString = () => `deleteTenant(api${this.api}, #${this.index})`;
}

/** A command on one kind of a live tenant's resources, through API `api`. */
abstract class ResourceCmd implements Cmd {
  constructor(
    readonly api: number,
    readonly index: number,
    readonly kind: "configuration" | "secret" | "agent",
  ) {}
  check = (m: Readonly<Model>) => live(m).length > 0;
  abstract run(m: Model, r: Real): Promise<void>;
}

/** Creates a Configuration, a Secret, or an Agent (on a Configuration) in a ready tenant. */
export class CreateResource extends ResourceCmd {
  async run(m: Model, r: Real) {
    const t = pick(live(m), this.index);
    if (t === undefined || t.tampered || !t.expect.includes("ready")) return;
    if (!(await untilReady(r.stack, t))) return; // the final check reports it
    const configurationId = t.configurations[0];
    if (this.kind === "agent" && configurationId === undefined) return;
    const [path, body] =
      this.kind === "configuration"
        ? ["configurations", { kind: "agent", values: { model: "m" } }]
        : this.kind === "secret"
          ? ["secrets", { name: `s-${uid()}`, value: "v" }]
          : ["agents", { name: `a-${uid()}`, configurationId, executionMode: "embedded" }];
    const res = await call(r.stack, this.api, "POST", `/namespaces/${t.id}/${path}`, body);
    const id = res.body.data?.id;
    if (res.status !== 201 || id === undefined) {
      throw new Error(`create ${this.kind} in a ready tenant answered ${res.status}`);
    }
    m.mutations.push({ action: `${path}.create`, resourceId: id });
    if (this.kind === "configuration") t.configurations.push(id);
    else if (this.kind === "secret") t.secrets.push(id);
    else t.agents.push({ id, configurationId: configurationId ?? "", deleted: false });
  }
  override toString = () => `create${cap(this.kind)}(api${this.api}, #${this.index})`;
}

/** Deletes the tenant's newest Configuration, Secret or Agent. */
export class DeleteResource extends ResourceCmd {
  async run(m: Model, r: Real) {
    const t = pick(live(m), this.index);
    if (t === undefined) return;
    const list =
      this.kind === "configuration"
        ? t.configurations
        : this.kind === "secret"
          ? t.secrets
          : t.agents.filter((a) => !a.deleted).map((a) => a.id);
    const id = list[list.length - 1];
    if (id === undefined) return;
    const path = `${this.kind}s`;
    const res = await call(r.stack, this.api, "DELETE", `/namespaces/${t.id}/${path}/${id}`);
    const inUse =
      this.kind === "configuration" && t.agents.some((a) => a.configurationId === id && !a.deleted);
    if (inUse) {
      if (res.status !== 409)
        throw new Error(`delete of a referenced Configuration: ${res.status}`);
      return;
    }
    // An Agent being removed still references its Configuration.
    if (res.status === 409 && t.agents.some((a) => a.configurationId === id)) return;
    if (!ok(res.status)) throw new Error(`delete ${this.kind} answered ${res.status}`);
    m.mutations.push({ action: `${path}.delete`, resourceId: id });
    const agent = t.agents.find((a) => a.id === id);
    if (agent !== undefined) agent.deleted = true;
    else list.pop();
  }
  override toString = () => `delete${cap(this.kind)}(api${this.api}, #${this.index})`;
}

const uid = () => Math.random().toString(36).slice(2, 10);
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
