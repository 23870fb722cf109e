/**
 * `GET /installation` (issue 37): the Installation's profile — normal, or preprovisioned with
 * the one Kubernetes namespace it is bound to — and which of OCC's admission policies (and
 * their bindings) are present in the cluster now, read with the API's own identity. For
 * administrators. A refused read is reported beside the profile, never taken as "absent".
 */
import type { NamespaceId } from "../../domain/placement/ids.js";
import { currentManagedName } from "../../domain/placement/naming.js";
import type { InstallationView } from "../../contract/inspection.js";
import type { NamespaceInspector } from "../../drivers/namespace-inspector.js";
import type { Db } from "../../store/db.js";
import type { Caller } from "../authorization.js";
import { isServiceError } from "../errors.js";
import { administer } from "../iam/administer.js";
import { apiErrorOf } from "../tenant/access.js";

export interface InstallationDeps {
  readonly db: Db;
  readonly inspector?: NamespaceInspector | undefined;
  /** The preprovisioned profile's one Namespace; undefined in the normal profile. */
  readonly preprovisionedNamespaceId?: NamespaceId | undefined;
}

export async function installationAsAdministrator(
  deps: InstallationDeps,
  caller: Caller,
): Promise<InstallationView> {
  return administer(
    deps.db,
    caller,
    { action: "installation.read", resourceKind: "installation" },
    async () => {
      const bound = deps.preprovisionedNamespaceId;
      const profile = bound === undefined ? "normal" : "preprovisioned";
      // Its namespace is named as a managed one (`oce-<hash15>`, preprovisioned.md §2).
      const base = {
        profile,
        boundNamespace: bound === undefined ? null : currentManagedName(bound),
      } as const;
      // The preprovisioned profile renders no admission policies (and may not read any).
      if (profile === "preprovisioned") {
        return { ...base, admissionPolicies: [], admissionPoliciesRefusal: null };
      }
      if (deps.inspector === undefined) {
        return {
          ...base,
          admissionPolicies: [],
          admissionPoliciesRefusal: {
            code: "DEPENDENCY_UNAVAILABLE",
            message: "This API has no Kubernetes reader (an installed Compute Driver).",
          },
        };
      }
      try {
        const policies = await deps.inspector.admissionPolicies();
        return { ...base, admissionPolicies: [...policies], admissionPoliciesRefusal: null };
      } catch (err) {
        const refusal = apiErrorOf(err);
        if (!isServiceError(refusal)) throw err;
        return {
          ...base,
          admissionPolicies: [],
          admissionPoliciesRefusal: { code: refusal.code, message: refusal.message },
        };
      }
    },
  );
}
