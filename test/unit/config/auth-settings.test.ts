/**
 * The Installation configuration's `auth` section (issue 42): its shape (unknown keys refused,
 * the oidc/google sub-objects), defaults, and the cross-field rules, each refusal naming its key.
 */
import { describe, expect, it } from "vitest";
import {
  ConfigurationError,
  validateInstallationConfig,
} from "../../../src/config/installation-config.js";

function problemsOf(doc: unknown): string[] {
  try {
    validateInstallationConfig(doc, "test.yaml");
  } catch (err) {
    if (err instanceof ConfigurationError) return err.problems.map((p) => p.message);
    throw err;
  }
  throw new Error("expected the configuration to be refused");
}

const files = {
  clientIdFile: "/etc/occ/auth/x/client-id",
  clientSecretFile: "/etc/occ/auth/x/client-secret",
};
const full = {
  baseUrl: "https://occ.example.com",
  sessionKeyFile: "/etc/occ/auth/session/session-key",
  recoveryUserId: "prn_recovery",
  passwordSignIn: "recovery-only",
  google: { ...files, allowedEmails: ["a@example.com"], allowedDomains: ["example.com"] },
  oidc: {
    issuer: "https://idp.example.com",
    displayName: "Example SSO",
    ...files,
    allowedEmails: [],
    allowedDomains: [],
    allowedGroups: [],
    groupRoles: [{ group: "platform-admins", role: "administrator", namespaceId: "ns_x" }],
  },
};

describe("auth", () => {
  it("defaults to password sign-in for everyone, no provider, a per-process key", () => {
    const c = validateInstallationConfig({}, "test.yaml");
    expect(c.auth).toEqual({
      baseUrl: null,
      sessionKeyFile: null,
      recoveryUserId: null,
      passwordSignIn: "all",
      google: null,
      oidc: null,
    });
  });

  it("accepts the whole section as the chart renders it", () => {
    const c = validateInstallationConfig({ auth: full }, "test.yaml");
    expect(c.auth.baseUrl?.origin).toBe("https://occ.example.com");
    expect(c.auth.passwordSignIn).toBe("recovery-only");
    expect(c.auth.oidc?.groupRoles?.[0]?.group).toBe("platform-admins");
    expect(c.auth.google?.allowedDomains).toEqual(["example.com"]);
  });

  it("refuses unknown keys, also inside a provider, by their path", () => {
    expect(problemsOf({ auth: { passwordSignin: "all" } })[0]).toMatch(/^auth/);
    expect(problemsOf({ auth: { ...full, oidc: { ...full.oidc, scope: "x" } } }).join()).toContain(
      "auth.oidc",
    );
  });

  it("a provider needs recoveryUserId and an https baseUrl", () => {
    const p = problemsOf({ auth: { oidc: full.oidc } });
    expect(p.some((m) => m.startsWith("auth.recoveryUserId:"))).toBe(true);
    expect(p.some((m) => m.startsWith("auth.baseUrl:") && m.includes("https"))).toBe(true);
    const http = problemsOf({
      auth: { google: full.google, recoveryUserId: "prn_r", baseUrl: "http://127.0.0.1:8080" },
    });
    expect(http).toEqual([
      expect.stringMatching(/^auth\.baseUrl: an https:\/\/ URL is required when auth\.google/),
    ]);
  });

  it("recovery-only needs a provider", () => {
    expect(
      problemsOf({ auth: { passwordSignIn: "recovery-only", recoveryUserId: "prn_r" } }),
    ).toEqual([
      expect.stringMatching(
        /^auth\.passwordSignIn: recovery-only needs auth\.oidc or auth\.google/,
      ),
    ]);
  });

  it("allows http only on a loopback address, and an origin only", () => {
    expect(
      validateInstallationConfig({ auth: { baseUrl: "http://localhost:8080" } }, "t").auth.baseUrl
        ?.origin,
    ).toBe("http://localhost:8080");
    expect(problemsOf({ auth: { baseUrl: "http://occ.example.com" } })[0]).toMatch(
      /^auth\.baseUrl: http:\/\/ is allowed only/,
    );
    expect(problemsOf({ auth: { baseUrl: "https://occ.example.com/console" } })[0]).toMatch(
      /without a path/,
    );
    expect(problemsOf({ auth: { baseUrl: "not a url" } })[0]).toMatch(/^auth\.baseUrl: not a URL/);
  });
});
