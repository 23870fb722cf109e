/** RBAC subjects as the `occ` command takes them on its command line. */
import type { RbacSubject } from "../drivers/kubernetes/rbac-objects.js";

/** Parses `ns:name` or `ns/name` (a ServiceAccount) or `user:name` into an RBAC subject. */
export function parseSubject(flag: string, text: string): RbacSubject {
  const user = /^user:(.+)$/.exec(text);
  if (user?.[1] !== undefined) return { kind: "User", name: user[1] };
  const sa = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)[:/]([a-z0-9]([-.a-z0-9]*[a-z0-9])?)$/.exec(text);
  if (sa?.[1] !== undefined && sa[3] !== undefined) {
    return { kind: "ServiceAccount", namespace: sa[1], name: sa[3] };
  }
  throw new Error(
    `${flag}: "${text}" is neither <namespace>:<serviceaccount> nor user:<name>; e.g. openclaw-system:occ-worker (the chart's ServiceAccount in its release namespace)`,
  );
}
