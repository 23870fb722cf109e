/**
 * The OpenShell gateway client: the four calls the Sandbox Driver makes (health, get, create,
 * delete a Workspace) over gRPC, driven by the Installation's `openshell` settings.
 *
 * Every call carries a deadline (`requestTimeoutMs`) and, when a token file is configured, the
 * bearer token read afresh from it (so a rotated token is picked up without a restart). A
 * failed call is a {@link GatewayError} with a closed category; callers never look at message
 * text. NOT_FOUND on get is an answer (`null`), not an error; deletes always ask for
 * allow-missing, so an absent Workspace is an outcome too.
 */
import { readFileSync } from "node:fs";
import { Client, Metadata, credentials, status, type ServiceDefinition } from "@grpc/grpc-js";
import type { OpenShellSettings } from "../../config/installation-config.js";
import {
  openShellService,
  type DeleteOutcome,
  type DeleteWorkspaceResponseMessage,
  type HealthResponseMessage,
  type WorkspaceMessage,
  type WorkspaceResponseMessage,
} from "./service.js";
import { GatewayError, type GatewayFailure } from "./gateway-error.js";

export { GATEWAY_FAILURES, GatewayError, type GatewayFailure } from "./gateway-error.js";

/** The gateway operations the Sandbox Driver uses. */
export interface OpenShellGateway {
  health(): Promise<HealthResponseMessage>;
  /** The Workspace, or `null` when the gateway answers NOT_FOUND. */
  getWorkspace(name: string): Promise<WorkspaceMessage | null>;
  createWorkspace(
    name: string,
    labels: Readonly<Record<string, string>>,
  ): Promise<WorkspaceMessage>;
  /** Deletes with allow-missing: completed, accepted (terminating) or already absent. */
  deleteWorkspace(name: string): Promise<DeleteOutcome>;
  close(): void;
}

function categoryOf(code: status): GatewayFailure {
  switch (code) {
    case status.DEADLINE_EXCEEDED:
      return "timeout";
    case status.ALREADY_EXISTS:
      return "already-exists";
    case status.UNAVAILABLE:
    case status.RESOURCE_EXHAUSTED:
    case status.ABORTED:
    case status.CANCELLED:
    case status.INTERNAL:
    case status.UNKNOWN:
      return "unavailable";
    default:
      return "rejected";
  }
}

/** Creates a client for `settings.endpoint` (`host:port`). */
export function createOpenShellGateway(settings: OpenShellSettings): OpenShellGateway {
  const service: ServiceDefinition = openShellService();
  const channel =
    settings.tlsRootFile === undefined
      ? credentials.createInsecure()
      : credentials.createSsl(readFileSync(settings.tlsRootFile));
  const client = new Client(settings.endpoint, channel);

  const metadata = (): Metadata => {
    const md = new Metadata();
    if (settings.tokenFile !== undefined) {
      md.set("authorization", `Bearer ${readFileSync(settings.tokenFile, "utf8").trim()}`);
    }
    return md;
  };

  const call = <Res>(method: string, request: object): Promise<Res> => {
    const def = service[method];
    if (def === undefined) throw new Error(`openshell.v1.OpenShell has no method ${method}`);
    return new Promise<Res>((resolve, reject) => {
      client.makeUnaryRequest<object, Res>(
        def.path,
        def.requestSerialize as (value: object) => Buffer,
        def.responseDeserialize as (bytes: Buffer) => Res,
        request,
        metadata(),
        { deadline: Date.now() + settings.requestTimeoutMs },
        (err, response) => {
          if (err !== null || response === undefined) {
            const code: status = err?.code ?? status.UNKNOWN;
            reject(
              new GatewayError(
                categoryOf(code),
                code,
                `OpenShell gateway ${method} failed (${status[code]})`,
                { cause: err },
              ),
            );
            return;
          }
          resolve(response);
        },
      );
    });
  };

  return {
    health: () => call<HealthResponseMessage>("Health", {}),
    async getWorkspace(name) {
      try {
        const res = await call<WorkspaceResponseMessage>("GetWorkspace", { name });
        return res.workspace;
      } catch (err) {
        if (err instanceof GatewayError && err.grpcCode === status.NOT_FOUND) return null;
        throw err;
      }
    },
    async createWorkspace(name, labels) {
      const res = await call<WorkspaceResponseMessage>("CreateWorkspace", { name, labels });
      if (res.workspace === null) {
        throw new GatewayError("rejected", undefined, "OpenShell gateway created no workspace");
      }
      return res.workspace;
    },
    async deleteWorkspace(name) {
      const res = await call<DeleteWorkspaceResponseMessage>("DeleteWorkspace", {
        name,
        allowMissing: true,
      });
      return res.outcome;
    },
    close: () => {
      client.close();
    },
  };
}
