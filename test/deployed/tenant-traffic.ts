/**
 * Tenant isolation by traffic on the node (test/deployed/chart.test.ts): listener pods (a
 * cluster DNS pod as network.dns selects it, an Agent gateway in the second tenant) and probe
 * pods that try their ports from the first tenant, the configured gateway clients' namespace
 * and a stranger; what each probe saw, as the NetworkPolicies enforced it.
 */
import { LABELS, MARKER_VALUES } from "../../src/domain/index.js";
import { listenerPod, policyChains, probePod } from "../harness/node/network-policy.js";
import { eventually, kubectl, kubectlApply, kubectlOk } from "../harness/node/kubectl.js";
import type { DeployedEnvironment } from "../harness/node/environment.js";

/**
 * `<probe> -> <dns|gateway>:<port> open|blocked`, in probe order; the pods are deleted after.
 * `first` and `second` are the two tenants' namespaces, `clients` the gateway clients' one
 * (created here).
 */
export async function trafficSeen(
  env: DeployedEnvironment,
  tenants: { first: string; second: string; clients: string },
): Promise<string[]> {
  await kubectlOk(env.kubeconfig, ["create", "namespace", tenants.clients]);
  const broad = { [LABELS.networkProfile]: MARKER_VALUES.networkProfileBroadEgress };
  const listeners = [
    // A cluster DNS pod as network.dns selects it (53 needs privileges: 5353 is also allowed).
    {
      name: "dns",
      namespace: "kube-system",
      labels: { "k8s-app": "kube-dns" },
      ports: [5353, 8053],
    },
    // An Agent gateway pod in the second tenant.
    {
      name: "gateway",
      namespace: tenants.second,
      labels: { ...broad, [LABELS.workloadRole]: MARKER_VALUES.workloadRoleGateway },
      ports: [18789, 8080],
    },
  ];
  for (const l of listeners) {
    await kubectlApply(env.kubeconfig, listenerPod({ ...l, image: env.image }));
  }
  const ip: Record<string, string> = {};
  for (const l of listeners) {
    await kubectlOk(env.kubeconfig, [
      "-n",
      l.namespace,
      "wait",
      "--for=condition=Ready",
      `pod/${l.name}`,
      "--timeout=120s",
    ]);
    ip[l.name] = await kubectlOk(env.kubeconfig, [
      "-n",
      l.namespace,
      "get",
      "pod",
      l.name,
      "-o",
      "jsonpath={.status.podIP}",
    ]);
  }
  const dns = ip.dns ?? "";
  const gw = ip.gateway ?? "";
  const probes = [
    // A broad-egress workload of the first tenant: DNS only.
    {
      name: "tenant-a-broad",
      namespace: tenants.first,
      labels: broad,
      targets: [`${dns}:5353`, `${dns}:8053`, `${gw}:18789`],
    },
    // A workload without the broad-egress profile: nothing, not even DNS.
    { name: "tenant-a-plain", namespace: tenants.first, labels: {}, targets: [`${dns}:5353`] },
    // The configured gateway client: the gateway port only.
    {
      name: "client",
      namespace: tenants.clients,
      labels: { app: "gateway-client" },
      targets: [`${gw}:18789`, `${gw}:8080`],
    },
    // Any other pod outside the tenant: nothing.
    { name: "stranger", namespace: tenants.clients, labels: {}, targets: [`${gw}:18789`] },
  ];
  for (const p of probes) {
    await kubectlApply(env.kubeconfig, probePod({ ...p, image: env.image }));
  }
  const seen: string[] = [];
  for (const p of probes) {
    await eventually(
      `probe ${p.name} done`,
      async () => {
        const phase = await kubectlOk(env.kubeconfig, [
          "-n",
          p.namespace,
          "get",
          "pod",
          p.name,
          "-o",
          "jsonpath={.status.phase}",
        ]);
        return phase === "Succeeded" || phase === "Failed" ? phase : undefined;
      },
      120_000,
      async () =>
        (await kubectl(env.kubeconfig, ["-n", p.namespace, "describe", "pod", p.name])).stdout +
        (await policyChains()),
    );
    const out = await kubectlOk(env.kubeconfig, ["-n", p.namespace, "logs", p.name]);
    for (const line of out.trim().split("\n"))
      seen.push(`${p.name} -> ${line.replace(dns, "dns").replace(gw, "gateway")}`);
  }
  for (const p of [...probes, ...listeners]) {
    await kubectl(env.kubeconfig, ["-n", p.namespace, "delete", "pod", p.name, "--wait=false"]);
  }
  return seen;
}
