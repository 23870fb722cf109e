/**
 * The console's one door to the API: same-origin `fetch` with the session cookie. Every answer
 * is the API's envelope; a refusal becomes an {@link ApiError} carrying the API's own code and
 * message, which the pages show as they are. Types come from the contract (src/contract), the
 * same TypeBox schemas the server validates with.
 */
import type { NamespaceView } from "../../src/contract/namespaces.js";
import type { ProvidersView, WhoAmIView } from "../../src/contract/auth.js";
import type { AuditEventView } from "../../src/contract/audit.js";
import type { WorkerReportView } from "../../src/contract/workers.js";
import type {
  GrantsView,
  InstallationView,
  KubernetesEventView,
  PreflightResultView,
  SelectableView,
  TimelineView,
} from "../../src/contract/inspection.js";

export type { NamespaceView, ProvidersView, WhoAmIView, AuditEventView, WorkerReportView };
export type {
  GrantsView,
  InstallationView,
  KubernetesEventView,
  PreflightResultView,
  SelectableView,
  TimelineView,
};

/** A refusal from the API: its status, stable code and message. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

interface Envelope<T> {
  readonly data?: T;
  readonly meta?: { readonly nextCursor?: string | null };
  readonly error?: { readonly code: string; readonly message: string };
}

/** One page of a listing. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly nextCursor: string | null;
}

async function request<T>(method: string, path: string, body?: unknown): Promise<Envelope<T>> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: {
        accept: "application/json",
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ApiError(0, "UNREACHABLE", "The API cannot be reached; check the connection.");
  }
  const text = await res.text();
  let parsed: Envelope<T> = {};
  if (text !== "") {
    try {
      parsed = JSON.parse(text) as Envelope<T>;
    } catch {
      throw new ApiError(res.status, "BAD_ANSWER", `The API answered ${res.status} without JSON.`);
    }
  }
  if (!res.ok) {
    const error = parsed.error ?? { code: "HTTP_" + String(res.status), message: res.statusText };
    throw new ApiError(res.status, error.code, error.message);
  }
  return parsed;
}

async function data<T>(method: string, path: string, body?: unknown): Promise<T> {
  const answer = await request<T>(method, path, body);
  if (answer.data === undefined) throw new ApiError(0, "BAD_ANSWER", `${path} answered no data.`);
  return answer.data;
}

async function page<T>(path: string): Promise<Page<T>> {
  const answer = await request<T[]>("GET", path);
  return { items: answer.data ?? [], nextCursor: answer.meta?.nextCursor ?? null };
}

const query = (params: Record<string, string | number | undefined>): string => {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== "") q.set(key, String(value));
  }
  const s = q.toString();
  return s === "" ? "" : `?${s}`;
};

const enc = encodeURIComponent;

export const api = {
  providers: () => data<ProvidersView>("GET", "/auth/providers"),
  whoami: () => data<WhoAmIView>("GET", "/auth/whoami"),
  signIn: async (user: string, password: string) => {
    await request("POST", "/auth/password", { user, password });
  },
  signOut: async () => {
    await request("POST", "/auth/logout");
  },
  namespaces: (opts: { limit: number; cursor?: string | undefined; status?: string | undefined }) =>
    page<NamespaceView>(`/namespaces${query(opts)}`),
  namespace: (id: string) => data<NamespaceView>("GET", `/namespaces/${enc(id)}`),
  createNamespace: (body: { name: string; existingNamespace?: string }) =>
    data<NamespaceView>("POST", "/namespaces", body),
  retryNamespace: (id: string) => data<NamespaceView>("POST", `/namespaces/${enc(id)}/retry`),
  deleteNamespace: (id: string) => data<NamespaceView>("DELETE", `/namespaces/${enc(id)}`),
  workers: () => data<WorkerReportView[]>("GET", "/workers"),
  installation: () => data<InstallationView>("GET", "/installation"),
  preflight: (existingNamespace: string) =>
    data<PreflightResultView>("GET", `/namespaces/preflight${query({ existingNamespace })}`),
  selectable: () => data<SelectableView>("GET", "/namespaces/selectable"),
  timeline: (id: string) => data<TimelineView>("GET", `/namespaces/${enc(id)}/timeline`),
  grants: (id: string) => data<GrantsView>("GET", `/namespaces/${enc(id)}/grants`),
  tenantList: <T>(id: string, kind: TenantKind) =>
    page<T>(`/namespaces/${enc(id)}/${kind}${query({ limit: 100 })}`),
};

/** The resource listings of one Namespace the console shows. */
export const TENANT_KINDS = ["configurations", "secrets", "service-accounts", "agents"] as const;
export type TenantKind = (typeof TENANT_KINDS)[number];
