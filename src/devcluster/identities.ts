import { randomBytes } from "node:crypto";

/**
 * The static-token identities of the local cluster. The administrator is in `system:masters`;
 * the others start with no permissions at all, so every grant a test or the chart makes is
 * visible and least privilege can be proven against the real RBAC authorizer.
 */
export const CLUSTER_IDENTITIES = {
  admin: { user: "occ-admin", groups: ["system:masters"] },
  "occ-worker": { user: "occ-worker", groups: [] },
  "occ-api": { user: "occ-api", groups: [] },
  operator: { user: "operator", groups: [] },
  /** Never granted anything, by anyone: proves the API server really enforces RBAC. */
  nobody: { user: "nobody", groups: [] },
} as const satisfies Record<string, { user: string; groups: readonly string[] }>;

export type ClusterIdentity = keyof typeof CLUSTER_IDENTITIES;
export const CLUSTER_IDENTITY_NAMES = Object.keys(CLUSTER_IDENTITIES) as ClusterIdentity[];

export type IdentityTokens = Readonly<Record<ClusterIdentity, string>>;

export function newIdentityTokens(): IdentityTokens {
  const out: Partial<Record<ClusterIdentity, string>> = {};
  for (const id of CLUSTER_IDENTITY_NAMES) out[id] = randomBytes(24).toString("hex");
  return out as IdentityTokens;
}

/** The kube-apiserver `--token-auth-file` CSV: token,user,uid,"group1,group2". */
export function tokenAuthFile(tokens: IdentityTokens): string {
  return CLUSTER_IDENTITY_NAMES.map((id) => {
    const { user, groups } = CLUSTER_IDENTITIES[id];
    const g = groups.length > 0 ? `,"${groups.join(",")}"` : "";
    return `${tokens[id]},${user},${user}${g}`;
  }).join("\n");
}
