import { request } from "node:https";
import {
  createObjectClient,
  isKubeError,
  loadKubeConfig,
  type Kind,
  type KubeObjectLike,
} from "../drivers/kubernetes/client/index.js";
import { REFUSAL_PREFIX } from "../drivers/kubernetes/admission-policies.js";

/** What the policy probe needs of a local cluster: its address, CA and administrator. */
export interface ProbeTarget {
  readonly server: string;
  readonly caPem: string;
  readonly adminToken: string;
  readonly adminKubeconfig: string;
}

const POLICY_KINDS = [
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionPolicyBinding",
] as const satisfies readonly Kind[];

/**
 * Creates the admission policies and their bindings as the administrator (existing ones of the
 * same name are replaced, so a restarted `occ dev up` runs the current rules), then waits until
 * the API server enforces them for `probeUser`.
 */
export async function installAdmissionPolicies(
  target: ProbeTarget,
  objects: readonly KubeObjectLike[],
  probeUser: string,
): Promise<void> {
  const admin = createObjectClient(loadKubeConfig(target.adminKubeconfig));
  try {
    for (const obj of objects) {
      const kind = POLICY_KINDS.find((policyKind) => policyKind === obj.kind);
      if (kind === undefined) {
        throw new Error(`not an admission policy object: ${obj.kind ?? ""}`);
      }
      try {
        await admin.create(kind, obj);
      } catch (err) {
        if (!(isKubeError(err, "conflict") && err.reason === "AlreadyExists")) throw err;
        await admin.apply(kind, obj, { force: true, fieldManager: "occ-dev" });
      }
    }
  } finally {
    admin.close();
  }
  await untilEnforced(target, probeUser);
}

/**
 * Polls until a server-side dry run of a namespace OCC must never create, sent as `user`
 * (impersonated by the administrator, with `system:masters` so RBAC lets it through), is
 * refused by an OCC policy. Nothing is stored, whatever the answer.
 */
async function untilEnforced(target: ProbeTarget, user: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    const answer = await probe(target, user);
    if (answer.status === 403 && answer.body.includes(REFUSAL_PREFIX)) return;
    last = `${answer.status} ${answer.body.slice(0, 300)}`;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the admission policies were not enforced after ${timeoutMs} ms: ${last}`);
}

function probe(target: ProbeTarget, user: string): Promise<{ status: number; body: string }> {
  const body = JSON.stringify({
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: "occ-admission-probe" },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      new URL("/api/v1/namespaces?dryRun=All", target.server),
      {
        method: "POST",
        ca: target.caPem,
        headers: {
          authorization: `Bearer ${target.adminToken}`,
          "impersonate-user": user,
          "impersonate-group": "system:masters",
          "content-type": "application/json",
          accept: "application/json",
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
