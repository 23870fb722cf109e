/**
 * The preprovisioned binding (preprovisioned.md §1): which platform Namespace the operator
 * prepared a Kubernetes namespace for, and that namespace's `metadata.uid`.
 *
 * The chart passes it as the JSON environment variable `OCC_PREPROVISIONED_NAMESPACE`; the
 * controller parses it with the chart's rules. Every problem is reported at once, each naming
 * the key at fault, so a malformed binding stops startup with a message that says what to fix.
 */
import type { ConfigurationProblem } from "../isolation/compute-settings.js";
import {
  PREPROVISIONED_NAMESPACE_ID_PATTERN,
  isPreprovisionedNamespaceId,
  type NamespaceId,
} from "../placement/ids.js";
import { err, ok, type Result } from "../input/result.js";
import { isRecord, messageOf, oneOf } from "../input/unknowns.js";

/** The environment variable the chart sets. */
export const PREPROVISIONED_ENV = "OCC_PREPROVISIONED_NAMESPACE";

/** A lowercase RFC 4122-shaped UUID, as Kubernetes writes `metadata.uid`. */
export const LOWERCASE_UUID_PATTERN =
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The validated binding. */
export interface PreprovisionedBinding {
  readonly namespaceId: NamespaceId;
  readonly uid: string;
}

const KEYS = ["namespaceId", "uid"] as const;

/**
 * Parses the JSON text of `OCC_PREPROVISIONED_NAMESPACE`: a JSON object with exactly
 * `namespaceId` (`^ns_[a-zA-Z0-9_-]{1,60}$`) and `uid` (a lowercase UUID). Malformed JSON, a
 * value that is not an object, a missing or extra key, a bad ID and a UID that is not a
 * lowercase UUID (uppercase named as such) are each reported; the input is never echoed.
 */
export function parsePreprovisionedBinding(
  raw: string,
): Result<PreprovisionedBinding, ConfigurationProblem[]> {
  let doc: unknown;
  try {
    doc = JSON.parse(raw);
  } catch (cause) {
    return err([
      problem(
        PREPROVISIONED_ENV,
        `${PREPROVISIONED_ENV} is not valid JSON (${messageOf(cause)}); expected {"namespaceId":"ns_…","uid":"<lowercase UUID>"}`,
      ),
    ]);
  }
  if (!isRecord(doc)) {
    return err([
      problem(
        PREPROVISIONED_ENV,
        `${PREPROVISIONED_ENV} must be a JSON object with exactly the keys namespaceId and uid`,
      ),
    ]);
  }
  const fields = doc;
  const problems: ConfigurationProblem[] = [];
  for (const key of Object.keys(fields)) {
    if (oneOf(KEYS, key) === undefined) {
      problems.push(
        problem(
          keyOf(key),
          `${keyOf(key)} is not allowed: the binding has exactly the keys namespaceId and uid`,
        ),
      );
    }
  }
  const id = fields.namespaceId;
  if (!("namespaceId" in fields)) {
    problems.push(problem(keyOf("namespaceId"), `${keyOf("namespaceId")} is required`));
  } else if (typeof id !== "string" || !PREPROVISIONED_NAMESPACE_ID_PATTERN.test(id)) {
    problems.push(
      problem(keyOf("namespaceId"), `${keyOf("namespaceId")} must match ^ns_[a-zA-Z0-9_-]{1,60}$`),
    );
  }
  const uid = fields.uid;
  if (!("uid" in fields)) {
    problems.push(problem(keyOf("uid"), `${keyOf("uid")} is required`));
  } else if (typeof uid !== "string" || !LOWERCASE_UUID_PATTERN.test(uid)) {
    const uppercase = typeof uid === "string" && LOWERCASE_UUID_PATTERN.test(uid.toLowerCase());
    problems.push(
      problem(
        keyOf("uid"),
        uppercase
          ? `${keyOf("uid")} must be a lowercase UUID, but it contains uppercase letters; copy metadata.uid exactly as Kubernetes reports it`
          : `${keyOf("uid")} must be a lowercase UUID (the namespace's metadata.uid)`,
      ),
    );
  }
  if (problems.length > 0 || !isPreprovisionedNamespaceId(id) || typeof uid !== "string") {
    return err(problems);
  }
  return ok({ namespaceId: id, uid });
}

function keyOf(field: string): string {
  return `${PREPROVISIONED_ENV}.${field}`;
}

function problem(key: string, message: string): ConfigurationProblem {
  return { key, message };
}
