import { describe, expect, inject, it } from "vitest";
import { eventually, kubectl, kubectlOk } from "../harness/node/kubectl.js";
import "../harness/node/environment.js";

const env = inject("deployed");

describe("the image on a real node", () => {
  it("runs `occ --help` as uid 1000, the image's own user, with pull policy Never", async () => {
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
    const uid = await kubectlOk(env.kubeconfig, ["-n", ns, "logs", "occ-help", "-c", "uid"]);
    expect(uid.trim()).toBe("uid=1000 gid=1000");
    await kubectlOk(env.kubeconfig, ["delete", "namespace", ns, "--wait=false"]);
  });
});
