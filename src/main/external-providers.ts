/**
 * The API process's external sign-in providers (issue 42), built at startup from
 * `auth.oidc` and `auth.google`: each provider's client ID and secret read from their files
 * (refused by key when unreadable or empty), the allow-lists and `groupRoles` as configured.
 *
 * Test only: `OCC_TEST_GOOGLE_ISSUER` replaces Google's issuer (so the `hd` check is proven
 * against a local provider), and `OCC_TEST_INSECURE_OIDC=1` lets `openid-client` talk plain
 * http to an `http://127.0.0.1` issuer. Neither is read from the configuration file.
 */
import { readFile } from "node:fs/promises";
import { TEST_INSECURE_OIDC_ENV } from "../config/auth-settings.js";
import { ConfigurationError, type InstallationConfig } from "../config/installation-config.js";
import {
  ExternalProviders,
  GOOGLE_ISSUER,
  insecureLoopbackAllowed,
  type ExternalProviderSettings,
} from "../services/signin/external-providers.js";
import { errnoCodeOf } from "../domain/input/unknowns.js";

type Environment = Readonly<Record<string, string | undefined>>;

async function secretFile(key: string, path: string): Promise<string> {
  let value: string;
  try {
    value = (await readFile(path, "utf8")).trim();
  } catch (err) {
    throw new ConfigurationError(path, [
      {
        key,
        message: `${key}: cannot read ${path}: ${errnoCodeOf(err) ?? "error"}`,
      },
    ]);
  }
  if (value === "") {
    throw new ConfigurationError(path, [{ key, message: `${key}: ${path} is empty` }]);
  }
  return value;
}

/** The enabled providers; empty when neither `auth.oidc` nor `auth.google` is set. */
export async function loadExternalProviders(
  config: InstallationConfig,
  env: Environment,
): Promise<{ readonly providers: ExternalProviders; readonly warnings: readonly string[] }> {
  const settings: ExternalProviderSettings[] = [];
  const warnings: string[] = [];
  const insecure = (issuer: string) =>
    insecureLoopbackAllowed(issuer, { [TEST_INSECURE_OIDC_ENV]: env[TEST_INSECURE_OIDC_ENV] });
  const { oidc, google } = config.auth;
  if (oidc !== null) {
    settings.push({
      provider: "oidc",
      issuer: oidc.issuer,
      displayName: oidc.displayName ?? "Single sign-on",
      clientId: await secretFile("auth.oidc.clientIdFile", oidc.clientIdFile),
      clientSecret: await secretFile("auth.oidc.clientSecretFile", oidc.clientSecretFile),
      allowLists: {
        allowedEmails: oidc.allowedEmails ?? [],
        allowedDomains: oidc.allowedDomains ?? [],
        allowedGroups: oidc.allowedGroups ?? [],
      },
      groupRoles: oidc.groupRoles ?? [],
      insecureLoopbackForTests: insecure(oidc.issuer),
    });
  }
  if (google !== null) {
    const override = env.OCC_TEST_GOOGLE_ISSUER;
    const issuer = override === undefined || override === "" ? GOOGLE_ISSUER : override;
    if (issuer !== GOOGLE_ISSUER) {
      warnings.push(`OCC_TEST_GOOGLE_ISSUER is set: Google sign-in goes to ${issuer} (tests only)`);
    }
    settings.push({
      provider: "google",
      issuer,
      displayName: "Google",
      clientId: await secretFile("auth.google.clientIdFile", google.clientIdFile),
      clientSecret: await secretFile("auth.google.clientSecretFile", google.clientSecretFile),
      allowLists: {
        allowedEmails: google.allowedEmails ?? [],
        allowedDomains: google.allowedDomains ?? [],
        allowedGroups: [],
      },
      groupRoles: [],
      insecureLoopbackForTests: insecure(issuer),
    });
  }
  return { providers: new ExternalProviders(settings), warnings };
}
