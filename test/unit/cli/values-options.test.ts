import { afterEach, describe, expect, it, vi } from "vitest";
import { missingGatewayRouting } from "../../../src/cli/values-options.js";

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("occ preprovisioned render without gateway routing says the fix where it was given", () => {
  it("names the values key with --values", () => {
    expect(missingGatewayRouting({ values: "my-values.yaml", releaseNamespace: "ns" })).toContain(
      "off in my-values.yaml (over the chart's defaults): set gatewayRouting.enabled: true",
    );
  });

  it("names the configuration key with --config", () => {
    expect(missingGatewayRouting({ config: "installation.yaml" })).toContain(
      "network.gatewayRouting is not set in installation.yaml",
    );
  });

  it("names both ways to give a configuration when none was given", () => {
    vi.stubEnv("OCC_CONFIG_PATH", "");
    expect(missingGatewayRouting({})).toContain(
      "no configuration was given: pass --values my-values.yaml -n <release-ns> (the values file helm install takes) or --config installation.yaml",
    );
  });
});
