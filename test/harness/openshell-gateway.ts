/**
 * An in-process OpenShell gateway for the tests: a real gRPC server implementing the
 * repository's `openshell.v1.OpenShell` definition with the gateway's observable semantics,
 * so the product's client cannot tell it from the real one.
 *
 * - `GetWorkspace`: the workspace, or NOT_FOUND.
 * - `CreateWorkspace`: a DNS-1123 label of at most 19 characters (else INVALID_ARGUMENT);
 *   ALREADY_EXISTS when the name is taken (ACTIVE or TERMINATING); created ACTIVE with the
 *   given labels.
 * - `DeleteWorkspace`: absent → ALREADY_ABSENT with allow_missing, else NOT_FOUND; ACTIVE →
 *   COMPLETED (gone at once) or, when `drainMs` > 0, ACCEPTED and TERMINATING until the drain
 *   ends; TERMINATING → ACCEPTED.
 * - With a token, every call must carry `authorization: Bearer <token>` (else UNAUTHENTICATED).
 */
import { randomUUID } from "node:crypto";
import {
  Server,
  ServerCredentials,
  status,
  type sendUnaryData,
  type ServerUnaryCall,
  type UntypedServiceImplementation,
} from "@grpc/grpc-js";
import {
  openShellService,
  type CreateWorkspaceRequestMessage,
  type DeleteWorkspaceRequestMessage,
  type GetWorkspaceRequestMessage,
  type WorkspaceMessage,
  type WorkspacePhase,
} from "../../src/drivers/openshell/service.js";

/** A workspace as the gateway holds it. */
export interface StoredWorkspace {
  readonly id: string;
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  phase: WorkspacePhase;
}

export interface TestGateway {
  /** `<host>:<port>` (default host 127.0.0.1) */
  readonly endpoint: string;
  readonly workspaces: Map<string, StoredWorkspace>;
  /** Every call by method name, in order. */
  readonly calls: string[];
  /** How long a deleted workspace stays TERMINATING (0: deleted at once). */
  drainMs: number;
  stop(): Promise<void>;
}

const NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function message(w: StoredWorkspace): WorkspaceMessage {
  return { metadata: { id: w.id, name: w.name, labels: w.labels }, status: { phase: w.phase } };
}

function fail(callback: sendUnaryData<unknown>, code: status, details: string): void {
  callback({ code, details, name: "Error", message: details, metadata: undefined as never });
}

/** Starts the gateway on a free port of `host` (default loopback; pods need the node's address). */
export async function startTestGateway(
  opts: { readonly token?: string; readonly host?: string } = {},
): Promise<TestGateway> {
  const host = opts.host ?? "127.0.0.1";
  const workspaces = new Map<string, StoredWorkspace>();
  const calls: string[] = [];
  const server = new Server();
  const gateway = { drainMs: 0 };

  const authorized = (
    call: ServerUnaryCall<unknown, unknown>,
    cb: sendUnaryData<unknown>,
  ): boolean => {
    if (opts.token === undefined) return true;
    const [header] = call.metadata.get("authorization");
    if (header === `Bearer ${opts.token}`) return true;
    fail(cb, status.UNAUTHENTICATED, "missing or wrong bearer token");
    return false;
  };

  /** A unary method that records its call and refuses a wrong token before `serve` runs. */
  const unary =
    <Request>(name: string, serve: (request: Request, cb: sendUnaryData<unknown>) => void) =>
    (call: ServerUnaryCall<Request, unknown>, cb: sendUnaryData<unknown>) => {
      calls.push(name);
      if (authorized(call, cb)) serve(call.request, cb);
    };

  const handlers: UntypedServiceImplementation = {
    Health: unary<object>("Health", (_request, cb) => {
      cb(null, { status: "SERVICE_STATUS_HEALTHY", version: "test" });
    }),
    GetWorkspace: unary<GetWorkspaceRequestMessage>("GetWorkspace", ({ name }, cb) => {
      const found = workspaces.get(name);
      if (found === undefined) {
        fail(cb, status.NOT_FOUND, "workspace not found");
        return;
      }
      cb(null, { workspace: message(found) });
    }),
    CreateWorkspace: unary<CreateWorkspaceRequestMessage>("CreateWorkspace", (request, cb) => {
      const { name, labels } = request;
      if (name.length > 19 || !NAME.test(name)) {
        fail(
          cb,
          status.INVALID_ARGUMENT,
          "workspace name must be a DNS-1123 label of at most 19 characters",
        );
        return;
      }
      if (workspaces.has(name)) {
        fail(cb, status.ALREADY_EXISTS, "workspace already exists");
        return;
      }
      const created: StoredWorkspace = {
        id: randomUUID(),
        name,
        labels: { ...labels },
        phase: "WORKSPACE_PHASE_ACTIVE",
      };
      workspaces.set(name, created);
      cb(null, { workspace: message(created) });
    }),
    DeleteWorkspace: unary<DeleteWorkspaceRequestMessage>("DeleteWorkspace", (request, cb) => {
      const { name, allowMissing } = request;
      const found = workspaces.get(name);
      if (found === undefined) {
        if (allowMissing) cb(null, { outcome: "DELETE_OUTCOME_ALREADY_ABSENT" });
        else fail(cb, status.NOT_FOUND, "workspace not found");
        return;
      }
      if (found.phase === "WORKSPACE_PHASE_TERMINATING") {
        cb(null, { outcome: "DELETE_OUTCOME_ACCEPTED" });
        return;
      }
      if (gateway.drainMs <= 0) {
        workspaces.delete(name);
        cb(null, { outcome: "DELETE_OUTCOME_COMPLETED" });
        return;
      }
      found.phase = "WORKSPACE_PHASE_TERMINATING";
      setTimeout(() => {
        if (workspaces.get(name) === found) workspaces.delete(name);
      }, gateway.drainMs).unref();
      cb(null, { outcome: "DELETE_OUTCOME_ACCEPTED" });
    }),
  };
  server.addService(openShellService(), handlers);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${host}:0`, ServerCredentials.createInsecure(), (err, bound) => {
      if (err !== null) reject(err);
      else resolve(bound);
    });
  });
  return Object.assign(gateway, {
    endpoint: `${host}:${port}`,
    workspaces,
    calls,
    stop: () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => {
          resolve();
        });
      }),
  });
}
