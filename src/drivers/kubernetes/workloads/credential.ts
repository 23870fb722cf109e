/**
 * The provider credential of an Agent's ServiceAccount, read for its revision's credentials
 * Secret (drivers.md §4 "credentials as Secrets owned by the Agent (or revision)").
 */
import {
  PROVIDER_CREDENTIAL_KEY,
  workloadNotDone,
  type WorkloadNotDone,
} from "../../../domain/index.js";
import {
  ownedObjectMismatch,
  SECRET_DATA_KEY,
  secretMarkers,
} from "../../../domain/tenant/resources.js";
import type { CredentialSource } from "../../workloads.js";
import type { DataObject, ObjectClient } from "../client/index.js";
import type { BoundNamespace } from "../../tenant-objects.js";
import { kubeFailure } from "./context.js";

/**
 * The provider credential as stored by the Secret Driver: the Secret recorded for it, in the
 * namespace it was written to, with its UID and exact markers — anything else is refused. The
 * value travels only from one Secret body to the other; it is never logged or returned.
 */
export async function readCredential(
  client: ObjectClient,
  bound: BoundNamespace,
  tenantId: string,
  source: CredentialSource | null,
): Promise<Readonly<Record<string, string>> | WorkloadNotDone> {
  if (source === null) return {};
  const refused = (why: string) =>
    workloadNotDone(
      "KUBERNETES_OWNERSHIP_CONFLICT",
      `the ServiceAccount's credential Secret ${why}; it is not used`,
    );
  if (source.kubernetesNamespace !== bound.name || source.namespaceUid !== bound.uid) {
    return refused("was written to another namespace than the bound one");
  }
  let found: DataObject | undefined;
  try {
    found = await client.find("Secret", { name: source.objectName, namespace: bound.name });
  } catch (err) {
    return kubeFailure(err, "read the ServiceAccount's credential Secret", bound.name);
  }
  const mismatch = ownedObjectMismatch(found?.metadata, {
    name: source.objectName,
    markers: secretMarkers(tenantId, source.secretId),
    uid: source.objectUid,
  });
  if (found === undefined) return refused("no longer exists");
  if (mismatch !== null) return refused(`is not the one OCC wrote (${mismatch})`);
  const value = found.data?.[SECRET_DATA_KEY];
  if (value === undefined) return refused("holds no value");
  return { [PROVIDER_CREDENTIAL_KEY]: value };
}
