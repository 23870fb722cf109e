/**
 * The console's read-only questions about Kubernetes (issue 37), answered through the
 * {@link NamespaceInspector} port with the API's own read-only identity:
 *
 * - the external-adoption preflight of a candidate namespace, before an administrator selects
 *   it (the worker's own verdicts; every failing requirement with its fix), and the namespaces
 *   that may be selected — both under `installation:administer`, like selecting one;
 * - a Namespace's timeline (its audit events and its Kubernetes namespace's Events) and the
 *   grants an operator applies in it — under `namespace:read` on that Namespace, so a read-only
 *   principal sees them too.
 *
 * Fail closed: a refused or failed read is a refusal with its code and fix (a preflight that
 * could not read is never "ok"); the timeline keeps its audit events and says why the Events
 * are missing.
 */
import type { NamespaceId } from "../../domain/placement/ids.js";
import { currentManagedName } from "../../domain/placement/naming.js";
import type { NamespaceInspector } from "../../drivers/namespace-inspector.js";
import type {
  GrantsView,
  KubernetesEventView,
  PreflightQuery,
  PreflightResultView,
  SelectableView,
  TimelineView,
} from "../../contract/inspection.js";
import { listAuditEvents } from "../../store/audit-events.js";
import type { Db } from "../../store/db.js";
import type { NamespaceRecord } from "../../store/namespaces.js";
import { recordingDenials, requirePermission, type Caller } from "../authorization.js";
import { configured, ServiceError, isServiceError } from "../errors.js";
import { presentAuditEvent } from "../operations/audit-events.js";
import { apiErrorOf } from "../tenant/access.js";
import { SELECT_EXISTING_NAMESPACE } from "./permissions.js";
import { readNamespace } from "./read.js";

const TIMELINE_LIMIT = 50;
const SELECTABLE_LIMIT = 500;

export interface InspectionDeps {
  readonly db: Db;
  /** Absent where the API may not list (preprovisioned profile, an installed Compute Driver). */
  readonly inspector?: NamespaceInspector | undefined;
  readonly preprovisionedNamespaceId?: NamespaceId | undefined;
}

const NO_READER =
  "This API has no Kubernetes reader (preprovisioned profile or an installed Compute Driver); run occ namespaces preflight with your kubeconfig.";

function inspectorOf(deps: InspectionDeps): NamespaceInspector {
  if (deps.preprovisionedNamespaceId !== undefined) {
    throw new ServiceError(
      "NAMESPACE_NOT_PLACEABLE",
      "This Installation runs the preprovisioned profile: its one Namespace is bound to the namespace the operator prepared; no other namespace can be selected.",
    );
  }
  return configured(deps.inspector, NO_READER);
}

/** Runs a read through the port; its failure becomes the API's refusal (503 with its code). */
async function read<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw apiErrorOf(err);
  }
}

async function administrator(deps: InspectionDeps, caller: Caller, action: string) {
  await recordingDenials(deps.db, caller, () =>
    requirePermission(deps.db, caller, SELECT_EXISTING_NAMESPACE, {
      action,
      resourceKind: "namespace",
    }),
  );
}

/** `GET /namespaces/preflight`: every failing requirement of selecting `existingNamespace`. */
export async function preflightCandidate(
  deps: InspectionDeps,
  caller: Caller,
  q: PreflightQuery,
): Promise<PreflightResultView> {
  await administrator(deps, caller, "namespaces.preflight");
  const inspector = inspectorOf(deps);
  const failures = await read(() => inspector.preflight(q.existingNamespace));
  return {
    existingNamespace: q.existingNamespace,
    ok: failures.length === 0,
    failures: failures.map((f) => ({
      check: f.check,
      code: f.code,
      key: f.key,
      message: f.message,
    })),
  };
}

/** `GET /namespaces/selectable`: namespaces without tenant markers that are not reserved. */
export async function listSelectable(
  deps: InspectionDeps,
  caller: Caller,
): Promise<SelectableView> {
  await administrator(deps, caller, "namespaces.selectable");
  const inspector = inspectorOf(deps);
  const names = await read(() => inspector.candidates(SELECTABLE_LIMIT));
  return names.map((name) => ({ name }));
}

/** Where the Namespace lives or will live (as `placement.kubernetesNamespace` shows it). */
function kubernetesNamespaceOf(ns: NamespaceRecord): string {
  return ns.kubernetesNamespace ?? ns.existingNamespace ?? currentManagedName(ns.id);
}

type EventsAnswer = Pick<TimelineView, "kubernetesEventsRefusal"> & {
  readonly items: KubernetesEventView[];
};

async function eventsOf(deps: InspectionDeps, ns: NamespaceRecord): Promise<EventsAnswer> {
  const inspector = deps.inspector;
  if (inspector === undefined) {
    return {
      items: [],
      kubernetesEventsRefusal: { code: "DEPENDENCY_UNAVAILABLE", message: NO_READER },
    };
  }
  try {
    const items = await read(() => inspector.events(kubernetesNamespaceOf(ns), TIMELINE_LIMIT));
    return { items: [...items], kubernetesEventsRefusal: null };
  } catch (err) {
    if (!isServiceError(err)) throw err;
    return { items: [], kubernetesEventsRefusal: { code: err.code, message: err.message } };
  }
}

/** `GET /namespaces/{id}/timeline`: audit events and Kubernetes Events, newest first. */
export async function namespaceTimeline(
  deps: InspectionDeps,
  caller: Caller,
  id: NamespaceId,
): Promise<TimelineView> {
  const ns = await readNamespace(deps, caller, id);
  const [audit, events] = await Promise.all([
    listAuditEvents(deps.db, { limit: TIMELINE_LIMIT, resource: { kind: "namespace", id } }),
    eventsOf(deps, ns),
  ]);
  return {
    audit: audit.items.map(presentAuditEvent),
    kubernetesEvents: events.items,
    kubernetesEventsRefusal: events.kubernetesEventsRefusal,
  };
}

/** `GET /namespaces/{id}/grants`: the RoleBindings the operator applies in its namespace. */
export async function namespaceGrants(
  deps: InspectionDeps,
  caller: Caller,
  id: NamespaceId,
): Promise<GrantsView> {
  const ns = await readNamespace(deps, caller, id);
  if (id === deps.preprovisionedNamespaceId) {
    throw new ServiceError(
      "NAMESPACE_NOT_PLACEABLE",
      `The preprovisioned Namespace's grants come from the chart: occ preprovisioned render --namespace-id ${id} --values <values.yaml> | kubectl apply -f -`,
    );
  }
  const inspector = inspectorOf(deps);
  const namespace = kubernetesNamespaceOf(ns);
  return {
    kubernetesNamespace: namespace,
    yaml: inspector.grants(namespace),
    command: `occ namespaces grants ${id} | kubectl apply -f -`,
  };
}
