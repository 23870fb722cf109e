import { stringify } from "yaml";

/** A kubeconfig for one token identity against one API server, as kubectl and client-node read it. */
export function kubeconfigYaml(opts: {
  server: string;
  caPem: string;
  user: string;
  token: string;
}): string {
  const cluster = "occ-local";
  const context = `${opts.user}@${cluster}`;
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: cluster,
        cluster: {
          server: opts.server,
          "certificate-authority-data": Buffer.from(opts.caPem).toString("base64"),
        },
      },
    ],
    users: [{ name: opts.user, user: { token: opts.token } }],
    contexts: [{ name: context, context: { cluster, user: opts.user } }],
    "current-context": context,
  });
}
