/**
 * Derived names and Kubernetes name syntax (placement.md §1).
 *
 * Every name OCC derives from an ID goes through `h`, so a name never carries the raw ID
 * (labels carry raw IDs; object names carry hashes). All functions are deterministic: the
 * same ID yields the same names on every process and every release, which is what lets a
 * restarted worker find the namespace an earlier one created.
 */
import { createHash } from "node:crypto";

/** Prefix of every managed (and preprovisioned) Kubernetes namespace name. */
export const MANAGED_NAME_PREFIX = "oce-";

/** Longest slug kept in the previous managed name form. */
const PREVIOUS_SLUG_MAX = 46;

/**
 * The first `n` lowercase hex characters of SHA-256 over the UTF-8 bytes of `x`. The input is
 * hashed exactly as given — no trimming, no case change. (A lone UTF-16 surrogate, which has
 * no UTF-8 form, is encoded as U+FFFD, as Node does.)
 *
 * @throws RangeError when `n` is not an integer in 0..64 (a programming error).
 */
export function h(x: string, n: number): string {
  if (!Number.isInteger(n) || n < 0 || n > 64) {
    throw new RangeError(`h(): n must be an integer in 0..64, got ${n}`);
  }
  return createHash("sha256").update(x, "utf8").digest("hex").slice(0, n);
}

/**
 * The current managed name, `oce-` + `h(id, 15)`: always 19 characters. New managed namespaces
 * always get this name, and it is also the preprovisioned namespace's name.
 */
export function currentManagedName(id: string): string {
  return MANAGED_NAME_PREFIX + h(id, 15);
}

/**
 * The slug of the previous managed form: the ID lowercased (locale-independent
 * `toLowerCase`), every run of characters outside `[a-z0-9-]` replaced by one `-`, leading and
 * trailing `-` trimmed, cut to 46 characters, trailing `-` trimmed again, `ns` if empty.
 */
export function previousManagedSlug(id: string): string {
  const collapsed = id
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+/, "")
    .replace(/-+$/, "");
  const cut = collapsed.slice(0, PREVIOUS_SLUG_MAX).replace(/-+$/, "");
  return cut === "" ? "ns" : cut;
}

/**
 * The previous managed name, `oce-<slug>-<h(id, 12)>` (at most 63 characters). OCC never
 * creates it; it is accepted only for a namespace discovery already found carrying the exact
 * tenant markers and the OpenClaw manager label (see `resolve.ts`).
 */
export function previousManagedName(id: string): string {
  return `${MANAGED_NAME_PREFIX}${previousManagedSlug(id)}-${h(id, 12)}`;
}

/** Which managed form, if any, `name` is for tenant `id`. */
export function managedNameForm(name: string, id: string): "current" | "previous" | null {
  if (name === currentManagedName(id)) return "current";
  if (name === previousManagedName(id)) return "previous";
  return null;
}

/**
 * The gateway membership label value, `h("<gatewayNamespace>/<gatewayName>", 12)`: the value
 * the Gateway's https listener selects namespaces by.
 */
export function gatewayMembership(gatewayNamespace: string, gatewayName: string): string {
  return h(`${gatewayNamespace}/${gatewayName}`, 12);
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME_PART = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** RFC 1123 label as Kubernetes uses it for namespace names: `[a-z0-9-]`, ≤ 63, alnum ends. */
export function isDns1123Label(value: string): boolean {
  return value.length <= 63 && DNS1123_LABEL.test(value);
}

/** RFC 1123 subdomain: dot-separated labels, ≤ 253 characters. */
export function isDns1123Subdomain(value: string): boolean {
  return value.length <= 253 && DNS1123_SUBDOMAIN.test(value);
}

/** A Kubernetes label key: optional DNS-subdomain prefix and `/`, then a name of ≤ 63. */
export function isLabelKey(value: string): boolean {
  const slash = value.lastIndexOf("/");
  const name = slash === -1 ? value : value.slice(slash + 1);
  const prefix = slash === -1 ? null : value.slice(0, slash);
  if (prefix !== null && !isDns1123Subdomain(prefix)) return false;
  return name.length <= 63 && QUALIFIED_NAME_PART.test(name);
}

/** A Kubernetes label value: empty, or ≤ 63 characters of `[A-Za-z0-9_.-]` with alnum ends. */
export function isLabelValue(value: string): boolean {
  return value === "" || (value.length <= 63 && QUALIFIED_NAME_PART.test(value));
}
