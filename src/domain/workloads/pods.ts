/**
 * The pod specs of an Agent's gateway and harness (drivers.md §4–5): restricted security
 * settings on every pod and container (the tenant namespace enforces Pod Security
 * `restricted`), the revision's configuration mounted read-only, the gateway's private state
 * claim, the shared workspace claim in `dedicated` mode, the gateway token from the revision's
 * credentials Secret, and — with a Credential Proxy — `HTTPS_PROXY` / `HTTP_PROXY` pointing at
 * it.
 */
import type { EgressAuthoritySetting, WorkloadImages } from "./inputs.js";
import {
  GATEWAY_TOKEN_KEY,
  PROVIDER_CREDENTIAL_KEY,
  WORKLOAD_PATHS,
  type WorkloadNames,
} from "./names.js";

/** What the pod specs are rendered from. */
export interface PodInputs {
  readonly names: WorkloadNames;
  readonly executionMode: "embedded" | "dedicated";
  readonly workloads: WorkloadImages;
  readonly egressAuthority: EgressAuthoritySetting | null;
  readonly gatewayPort: number;
  /** The ServiceAccount's credential kind, or null when it has none. */
  readonly credentialKind: string | null;
}

/** The Pod Security `restricted` profile, pod level. */
export const RESTRICTED_POD_SECURITY = {
  runAsNonRoot: true,
  seccompProfile: { type: "RuntimeDefault" },
} as const;

/** The Pod Security `restricted` profile, container level. */
export const RESTRICTED_CONTAINER_SECURITY = {
  allowPrivilegeEscalation: false,
  capabilities: { drop: ["ALL"] },
  runAsNonRoot: true,
  readOnlyRootFilesystem: true,
  seccompProfile: { type: "RuntimeDefault" },
} as const;

/**
 * The proxy URL of the Credential Proxy: its Service in its namespace, on its port
 * (`network.egressAuthority.service`, default `egress-authority`). The NetworkPolicy opens
 * egress to the pods behind it by their labels; the URL only names them.
 */
export function egressProxyUrl(authority: EgressAuthoritySetting): string {
  return `http://${authority.service}.${authority.namespace}.svc:${authority.port}`;
}

function proxyEnv(authority: EgressAuthoritySetting | null): Record<string, unknown>[] {
  if (authority === null) return [];
  const url = egressProxyUrl(authority);
  return [
    { name: "HTTPS_PROXY", value: url },
    { name: "HTTP_PROXY", value: url },
  ];
}

function tokenEnv(names: WorkloadNames): Record<string, unknown> {
  return {
    name: "OPENCLAW_GATEWAY_TOKEN",
    valueFrom: { secretKeyRef: { name: names.credentials, key: GATEWAY_TOKEN_KEY } },
  };
}

/**
 * The provider credential of the Agent's ServiceAccount, from the revision's credentials
 * Secret — only without a Credential Proxy: with one, the proxy holds provider credentials
 * and the workloads never do (drivers.md §5).
 */
function credentialEnv(p: PodInputs): Record<string, unknown>[] {
  if (p.credentialKind === null || p.egressAuthority !== null) return [];
  return [
    { name: "OPENCLAW_PROVIDER_CREDENTIAL_KIND", value: p.credentialKind },
    {
      name: "OPENCLAW_PROVIDER_CREDENTIAL",
      valueFrom: { secretKeyRef: { name: p.names.credentials, key: PROVIDER_CREDENTIAL_KEY } },
    },
  ];
}

/** True when the revision's credentials Secret carries the provider credential. */
export function carriesProviderCredential(p: {
  readonly credentialKind: string | null;
  readonly egressAuthority: EgressAuthoritySetting | null;
}): boolean {
  return p.credentialKind !== null && p.egressAuthority === null;
}

function resources(r: { readonly cpu: string; readonly memory: string }) {
  return { requests: { cpu: r.cpu, memory: r.memory }, limits: { cpu: r.cpu, memory: r.memory } };
}

const claimVolume = (name: string, claimName: string) => ({
  name,
  persistentVolumeClaim: { claimName },
});

/** Both pods: the gateway's ServiceAccount, its token not mounted, restricted. */
const podBase = (p: PodInputs) => ({
  serviceAccountName: p.names.gateway,
  automountServiceAccountToken: false,
  securityContext: RESTRICTED_POD_SECURITY,
});

/** Both containers read the Agent's configuration file from its ConfigMap, mounted read-only. */
const CONFIG_PATH_ENV = {
  name: "OPENCLAW_CONFIG_PATH",
  value: `${WORKLOAD_PATHS.config}/${WORKLOAD_PATHS.configFile}`,
};
const CONFIG_MOUNT = { name: "config", mountPath: WORKLOAD_PATHS.config, readOnly: true };
const configVolume = (p: PodInputs) => ({ name: "config", configMap: { name: p.names.config } });

/** The gateway pod: config, private state, shared workspace (dedicated), token, proxy. */
export function gatewayPodSpec(p: PodInputs): Record<string, unknown> {
  const dedicated = p.executionMode === "dedicated";
  return {
    ...podBase(p),
    containers: [
      {
        name: "gateway",
        image: p.workloads.gatewayImage,
        ports: [{ name: "gateway", containerPort: p.gatewayPort, protocol: "TCP" }],
        env: [
          CONFIG_PATH_ENV,
          { name: "OPENCLAW_STATE_DIR", value: WORKLOAD_PATHS.state },
          { name: "OPENCLAW_EXECUTION_MODE", value: p.executionMode },
          tokenEnv(p.names),
          ...credentialEnv(p),
          ...proxyEnv(p.egressAuthority),
        ],
        resources: resources(p.workloads.gatewayResources),
        securityContext: RESTRICTED_CONTAINER_SECURITY,
        volumeMounts: [
          CONFIG_MOUNT,
          { name: "state", mountPath: WORKLOAD_PATHS.state },
          ...(dedicated ? [{ name: "workspace", mountPath: WORKLOAD_PATHS.workspace }] : []),
        ],
      },
    ],
    volumes: [
      configVolume(p),
      claimVolume("state", p.names.gatewayState),
      ...(dedicated ? [claimVolume("workspace", p.names.workspace)] : []),
    ],
  };
}

/** The harness pod (dedicated mode): config, shared workspace, gateway address and token. */
export function harnessPodSpec(p: PodInputs): Record<string, unknown> {
  return {
    ...podBase(p),
    containers: [
      {
        name: "harness",
        image: p.workloads.harnessImage,
        env: [
          { name: "OPENCLAW_GATEWAY_URL", value: `http://${p.names.gateway}:${p.gatewayPort}` },
          CONFIG_PATH_ENV,
          tokenEnv(p.names),
          ...proxyEnv(p.egressAuthority),
        ],
        resources: resources(p.workloads.harnessResources),
        securityContext: RESTRICTED_CONTAINER_SECURITY,
        volumeMounts: [CONFIG_MOUNT, { name: "workspace", mountPath: WORKLOAD_PATHS.workspace }],
      },
    ],
    volumes: [configVolume(p), claimVolume("workspace", p.names.workspace)],
  };
}
