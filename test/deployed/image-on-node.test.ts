import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { REPO_ROOT } from "../harness/helm.js";
import { eventually, kubectl, kubectlOk } from "../harness/node/kubectl.js";
import "../harness/node/environment.js";

const env = inject("deployed");

describe("the image on a real node", () => {
  it("runs `occ --help` on the pinned Node.js as uid 10001, the image's own user", async () => {
    const ns = `image-${Date.now().toString(36)}`;
    await kubectlOk(env.kubeconfig, ["create", "namespace", ns]);
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "occ-help", namespace: ns },
      spec: {
        restartPolicy: "Never",
        automountServiceAccountToken: false,
        containers: [
          // The image's entrypoint and default command (`occ --help`), its user unchanged.
          { name: "help", image: env.image, imagePullPolicy: "Never" },
          {
            name: "uid",
            image: env.image,
            imagePullPolicy: "Never",
            command: [
              "node",
              "-e",
              "console.log(`uid=${process.getuid()} gid=${process.getgid()}`)",
            ],
          },
        ],
      },
    };
    await kubectlOk(env.kubeconfig, ["apply", "-f", "-"], JSON.stringify(pod));
    const phase = await eventually(
      "the pod completed",
      async () => {
        const p = await kubectlOk(env.kubeconfig, [
          "-n",
          ns,
          "get",
          "pod",
          "occ-help",
          "-o",
          "jsonpath={.status.phase}",
        ]);
        return p === "Succeeded" || p === "Failed" ? p : undefined;
      },
      120_000,
      async () => (await kubectl(env.kubeconfig, ["-n", ns, "describe", "pod", "occ-help"])).stdout,
    );
    const why =
      phase === "Succeeded"
        ? ""
        : (await kubectl(env.kubeconfig, ["-n", ns, "describe", "pod", "occ-help"])).stdout;
    expect({ phase, why }).toEqual({ phase: "Succeeded", why: "" });
    const help = await kubectlOk(env.kubeconfig, ["-n", ns, "logs", "occ-help", "-c", "help"]);
    expect(help).toMatch(/Usage: occ/);
    expect(help).toMatch(/migrate/);
    // The Node.js release tools/node.sh pins (24 LTS), not Debian's.
    const pinned = /^OCC_NODE_VERSION=(\S+)$/m.exec(
      readFileSync(join(REPO_ROOT, "tools/node.sh"), "utf8"),
    )?.[1];
    expect(pinned).toMatch(/^24\./);
    expect(help).toContain(`Runtime: Node.js v${pinned ?? "?"}`);
    const uid = await kubectlOk(env.kubeconfig, ["-n", ns, "logs", "occ-help", "-c", "uid"]);
    expect(uid.trim()).toBe("uid=10001 gid=10001");
    await kubectlOk(env.kubeconfig, ["delete", "namespace", ns, "--wait=false"]);
  });
});
