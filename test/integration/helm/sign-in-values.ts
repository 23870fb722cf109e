/**
 * What the chart's sign-in suites share (issue 42): complete sign-in values and a one-key
 * edit of them, a release namespace for the server-side dry run, and readers of what the API
 * Deployment mounts and where its NetworkPolicy lets it go.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { kubeAs, uniqueName } from "../../harness/kube.js";
import { findObject, type RenderedObject } from "../../harness/helm.js";
import { dryRun, installChartCrds } from "./api-server.js";
import { deploymentOf } from "./rendered.js";

/** Complete, valid sign-in values with both providers enabled (normal profile). */
export function signIn(): {
  auth: Record<string, unknown>;
  agentNativeAdmin: { enabled: boolean };
} {
  return {
    auth: {
      baseUrl: "https://occ.example.com",
      secretName: "occ-session",
      secretKey: "key",
      recoveryUserId: "prn_admin-1",
      passwordSignIn: "recovery-only",
      google: {
        enabled: true,
        clientSecretName: "google-client",
        allowedEmails: ["ann@example.com"],
        allowedDomains: ["example.com"],
        egressCidrs: ["142.250.0.0/15"],
      },
      oidc: {
        enabled: true,
        issuer: "https://idp.example.com:8443/realms/occ",
        displayName: "Example SSO",
        clientSecretName: "oidc-client",
        clientIdKey: "id",
        clientSecretKey: "secret",
        allowedGroups: ["platform"],
        groupRoles: [
          { group: "platform-admins", role: "admin" },
          { group: "team-a", role: "role_viewer", namespaceId: "ns_team-a" },
        ],
        egressCidrs: ["10.40.0.0/24", "10.41.0.7/32"],
      },
    },
    agentNativeAdmin: { enabled: false },
  };
}

export type Values = Record<string, unknown>;
/** `base` with `auth.<path>` (dotted) set to `value`. */
export function withAuth(base: Values, path: string, value: unknown): Values {
  const out = structuredClone(base);
  const keys = path.split(".");
  let cur = out.auth as Values;
  for (const key of keys.slice(0, -1)) cur = cur[key] as Values;
  cur[keys[keys.length - 1] as string] = value;
  return out;
}

/** A release namespace (and a scratch folder) for the file, the chart's CRDs installed. */
export interface SignInRelease {
  namespace: string;
  dir: string;
}

export function useSignInRelease(): SignInRelease {
  const release: SignInRelease = { namespace: "", dir: "" };
  beforeAll(async () => {
    await installChartCrds();
    release.namespace = uniqueName("helm-signin");
    await kubeAs("admin").core.createNamespace({ body: { metadata: { name: release.namespace } } });
    release.dir = await mkdtemp(join(tmpdir(), "occ-signin-"));
  });
  afterAll(async () => {
    await rm(release.dir, { recursive: true, force: true });
  });
  return release;
}

/** Every object passes the API server's server-side dry run in the release namespace. */
export async function expectAllAccepted(
  objects: readonly RenderedObject[],
  releaseNamespace: string,
): Promise<void> {
  const refusedObjects: string[] = [];
  for (const obj of objects) {
    const res = await dryRun(obj, releaseNamespace);
    if (res.status !== 200 && res.status !== 201) {
      refusedObjects.push(`${obj.kind} ${obj.metadata.name}: ${res.status}`);
    }
  }
  expect(refusedObjects).toEqual([]);
}

export interface Volume {
  name: string;
  secret?: { secretName: string; items: { key: string; path: string }[]; defaultMode: number };
}
export interface Mount {
  name: string;
  mountPath: string;
  readOnly?: boolean;
}
export function podOf(objects: readonly RenderedObject[], component: "api" | "worker") {
  const spec = (
    deploymentOf(objects, component) as unknown as {
      spec: { template: { spec: { volumes: Volume[]; containers: { volumeMounts: Mount[] }[] } } };
    }
  ).spec.template.spec;
  return { volumes: spec.volumes, mounts: spec.containers[0]?.volumeMounts ?? [] };
}
export interface EgressRule {
  to: { ipBlock?: { cidr: string } }[];
  ports: { protocol: string; port: number }[];
}
export function apiEgress(objects: readonly RenderedObject[]): EgressRule[] {
  const policy = findObject(objects, "NetworkPolicy", "occ-openclaw-enterprise-api");
  return (policy as unknown as { spec: { egress: EgressRule[] } }).spec.egress;
}
export const authMounts = (mounts: Mount[]) => mounts.filter((m) => m.name.startsWith("auth-"));
