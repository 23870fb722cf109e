import { describe, expect, it } from "vitest";
import { validateInstallationConfig } from "../../../src/config/installation-config.js";
import { CI_VALUES, helmTemplate, parseManifests } from "../../harness/helm.js";
import { installationDocument } from "./rendered.js";

/**
 * `worker.queue` of the chart's values is the Installation configuration's `worker.*`: every key
 * the worker reads (the preprovisioned poll and the resync included) passes the chart's values
 * schema, reaches the rendered ConfigMap and is what the worker then runs with; a value outside
 * the configuration's bounds is refused by `helm template` already, naming the key.
 */
async function workerConfig(queue: Record<string, unknown>, file: string) {
  const run = await helmTemplate({ valuesFiles: [file], values: { worker: { queue } } });
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  const doc = installationDocument(parseManifests(run.stdout));
  return { doc, config: validateInstallationConfig(doc, "the chart's ConfigMap").worker };
}

describe("worker.queue values → the Installation configuration's worker settings", () => {
  it.each([
    ["preprovisioned", CI_VALUES.preprovisioned],
    ["default", CI_VALUES.default],
  ])(
    "%s profile: pollSeconds and resyncSeconds reach the ConfigMap and the worker",
    async (_p, file) => {
      const { doc, config } = await workerConfig({ pollSeconds: 15, resyncSeconds: 120 }, file);
      expect(doc).toMatchObject({ worker: { pollSeconds: 15, resyncSeconds: 120 } });
      expect(config).toMatchObject({ pollSeconds: 15, resyncSeconds: 120 });
    },
  );

  it("the chart's defaults are the configuration's defaults (poll 60 s, resync 600 s)", async () => {
    const { config } = await workerConfig({}, CI_VALUES.preprovisioned);
    expect(config).toMatchObject({ pollSeconds: 60, resyncSeconds: 600 });
  });

  it.each([
    ["pollSeconds", 0],
    ["pollSeconds", 3601],
    ["pollSeconds", "60"],
    ["pollSeconds", 1.5],
    ["resyncSeconds", 0],
    ["resyncSeconds", 86_401],
  ])("%s: %j is refused by the values schema, naming the key", async (key, value) => {
    const run = await helmTemplate({
      valuesFiles: [CI_VALUES.preprovisioned],
      values: { worker: { queue: { [key]: value } } },
    });
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe("");
    // helm names the key as a JSON pointer.
    expect(run.stderr).toContain(`/worker/queue/${key}`);
  });

  it("an unknown key under worker.queue is refused", async () => {
    const run = await helmTemplate({
      valuesFiles: [CI_VALUES.default],
      values: { worker: { queue: { pollSecs: 60 } } },
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("pollSecs");
  });
});
