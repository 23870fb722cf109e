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
export const CLUSTER_IDENTITY_NAMES: readonly ClusterIdentity[] = Object.values(
  perIdentity((id) => id),
);

export type IdentityTokens = Readonly<Record<ClusterIdentity, string>>;

/** One value per identity, every identity written out (the compiler checks none is missing). */
export function perIdentity<T>(value: (id: ClusterIdentity) => T): Record<ClusterIdentity, T> {
  return {
    admin: value("admin"),
    "occ-worker": value("occ-worker"),
    "occ-api": value("occ-api"),
    operator: value("operator"),
    nobody: value("nobody"),
  };
}

export function newIdentityTokens(): IdentityTokens {
  return perIdentity(() => randomBytes(24).toString("hex"));
}

/** The tokens of a parsed `tokens.json`; throws naming the first identity without a token. */
export function parseIdentityTokens(document: unknown, file: string): IdentityTokens {
  return perIdentity((id) => {
    const token: unknown =
      typeof document === "object" && document !== null ? Reflect.get(document, id) : undefined;
    if (typeof token !== "string" || token === "") {
      throw new Error(`${file} holds no token for ${id}; delete the file to generate new tokens`);
    }
    return token;
  });
}

/** The kube-apiserver `--token-auth-file` CSV: token,user,uid,"group1,group2". */
export function tokenAuthFile(tokens: IdentityTokens): string {
  return CLUSTER_IDENTITY_NAMES.map((id) => {
    const { user, groups } = CLUSTER_IDENTITIES[id];
    const g = groups.length > 0 ? `,"${groups.join(",")}"` : "";
    return `${tokens[id]},${user},${user}${g}`;
  }).join("\n");
}
