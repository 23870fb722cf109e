/**
 * The Kubernetes implementation of the {@link NamespaceInspector} port: read-only, with the
 * API's identity (the chart's `openclaw-enterprise-api-namespaces` role: get/list namespaces,
 * list NetworkPolicies, RoleBindings, ClusterRoleBindings and Events, get OCC's admission
 * policies). A refused read is a `permission-missing` failure naming the read and that role.
 */
import type { InstallationConfig } from "../../config/installation-config.js";
import { LABELS } from "../../domain/index.js";
import { preflightExternal } from "../../domain/placement/external-preflight.js";
import { validateExistingNamespace } from "../../domain/placement/reserved.js";
import type { Violation } from "../../domain/placement/violations.js";
import type {
  AdmissionPolicyPresence,
  KubernetesEventRecord,
  NamespaceInspector,
} from "../namespace-inspector.js";
import { TenantObjectError } from "../tenant-objects.js";
import { ADMISSION_POLICY_NAMES } from "./admission-vocabulary.js";
import { ignoreNotFound, isKubeError, type ObjectClient } from "./client/index.js";
import type { EventObject } from "./client/kind-sections.js";
import {
  configuredGrantsManifest,
  preflightContext,
  readCandidate,
  requiredGrantsFor,
} from "./preflight-reads.js";

const API_ROLE = "openclaw-enterprise-api-namespaces";
const MAX_EVENT_MESSAGE = 512;

/** A failed read as the port's failure: 403 → permission-missing with the fix, else unavailable. */
function failure(what: string, err: unknown): TenantObjectError {
  if (isKubeError(err, "forbidden") || isKubeError(err, "unauthorized")) {
    return new TenantObjectError(
      "permission-missing",
      `The API may not ${what}: bind it the chart's ClusterRole ${API_ROLE} (helm upgrade), or run occ namespaces preflight with your kubeconfig.`,
      { cause: err },
    );
  }
  return new TenantObjectError("unavailable", `The API could not ${what}; retry later.`, {
    cause: err,
  });
}

async function reading<T>(what: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    // readCandidate wraps the Kubernetes error; its cause keeps the category.
    const cause = err instanceof Error && err.cause !== undefined ? err.cause : err;
    throw failure(what, isKubeError(err) ? err : cause);
  }
}

function eventRecord(e: EventObject): KubernetesEventRecord {
  const raw = e as EventObject & {
    readonly involvedObject?: { readonly kind?: string; readonly name?: string };
    readonly count?: number;
    readonly eventTime?: string | null;
  };
  const message = e.message ?? "";
  return {
    type: e.type ?? "Normal",
    reason: e.reason ?? "",
    message:
      message.length > MAX_EVENT_MESSAGE ? `${message.slice(0, MAX_EVENT_MESSAGE - 1)}…` : message,
    object: `${raw.involvedObject?.kind ?? "?"}/${raw.involvedObject?.name ?? "?"}`,
    source: e.source?.component ?? "",
    count: typeof raw.count === "number" ? raw.count : 1,
    lastAt: e.lastTimestamp ?? raw.eventTime ?? e.firstTimestamp ?? null,
  };
}

export class KubernetesNamespaceInspector implements NamespaceInspector {
  constructor(
    private readonly client: ObjectClient,
    private readonly config: InstallationConfig,
  ) {}

  async preflight(name: string, tenantId?: string): Promise<readonly Violation[]> {
    const candidate = await reading(`read namespace ${name} and its bindings`, () =>
      readCandidate(this.client, name, tenantId),
    );
    const grants = requiredGrantsFor(name, this.config);
    return preflightExternal(candidate, preflightContext(this.config, grants, tenantId));
  }

  async candidates(limit: number): Promise<readonly string[]> {
    const unmarked = await reading("list namespaces", () =>
      this.client.list("Namespace", { labelSelector: `!${LABELS.namespace}` }),
    );
    const controller = this.config.kubernetes.controllerNamespace;
    return unmarked
      .map((n) => n.metadata.name)
      .filter((name) => validateExistingNamespace(name, controller).ok)
      .sort()
      .slice(0, limit);
  }

  async events(namespace: string, limit: number): Promise<readonly KubernetesEventRecord[]> {
    const events = await reading(`list the Events in ${namespace}`, () =>
      this.client.list("Event", { namespace }),
    );
    return events
      .map(eventRecord)
      .sort((a, b) => (b.lastAt ?? "").localeCompare(a.lastAt ?? ""))
      .slice(0, limit);
  }

  async admissionPolicies(): Promise<readonly AdmissionPolicyPresence[]> {
    return Promise.all(
      Object.values(ADMISSION_POLICY_NAMES).map(async (name) => {
        const [policy, binding] = await reading(`read the admission policy ${name}`, () =>
          Promise.all([
            ignoreNotFound(this.client.get("ValidatingAdmissionPolicy", { name })),
            ignoreNotFound(this.client.get("ValidatingAdmissionPolicyBinding", { name })),
          ]),
        );
        return { name, policy: policy !== undefined, binding: binding !== undefined };
      }),
    );
  }

  grants(namespace: string): string {
    return configuredGrantsManifest(namespace, this.config);
  }
}
