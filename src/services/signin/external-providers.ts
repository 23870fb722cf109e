/**
 * The external sign-in providers (OIDC, Google) as the sign-in use cases need them: resolved
 * from the Installation configuration's `auth` section by the process (client ID and secret
 * read from their files), and the `openid-client` configuration of each, discovered once.
 */
import * as client from "openid-client";
import type { AllowLists, SignInProvider } from "../../domain/signin/allow-list.js";

/** One `auth.oidc.groupRoles` entry: a role by name or `role_…` ID, Installation-wide or in a Namespace. */
export interface GroupRoleSetting {
  readonly group: string;
  readonly role: string;
  readonly namespaceId?: string | undefined;
}

export interface ExternalProviderSettings {
  readonly provider: SignInProvider;
  readonly issuer: string;
  readonly displayName: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly allowLists: AllowLists;
  readonly groupRoles: readonly GroupRoleSetting[];
  /**
   * Test only: plain-http requests to a loopback issuer (`openid-client`'s
   * `allowInsecureRequests`). Set by the process only when the issuer is `http://127.0.0.1:…`
   * AND `OCC_TEST_INSECURE_OIDC=1`; never from the configuration file.
   */
  readonly insecureLoopbackForTests: boolean;
}

/** Google's issuer; tests only may override it (`OCC_TEST_GOOGLE_ISSUER`). */
export const GOOGLE_ISSUER = "https://accounts.google.com";

/** Whether `issuer` may be used over plain http in a test (see {@link ExternalProviderSettings}). */
export function insecureLoopbackAllowed(issuer: string, env: NodeJS.ProcessEnv): boolean {
  return env.OCC_TEST_INSECURE_OIDC === "1" && /^http:\/\/127\.0\.0\.1(:\d+)?(\/|$)/.test(issuer);
}

/** The scopes asked for: OIDC asks for `groups` only when groups are used. */
export function scopesOf(settings: ExternalProviderSettings): string {
  const groups =
    settings.provider === "oidc" &&
    (settings.allowLists.allowedGroups.length > 0 || settings.groupRoles.length > 0);
  return groups ? "openid email profile groups" : "openid email profile";
}

/**
 * The providers of one process, each discovered on first use (and again after a failed
 * discovery, so a provider that was down at start is found once it is up).
 */
export class ExternalProviders {
  private readonly discovered = new Map<SignInProvider, Promise<client.Configuration>>();

  constructor(private readonly settings: readonly ExternalProviderSettings[]) {}

  /** The enabled providers, in configuration order. */
  list(): readonly ExternalProviderSettings[] {
    return this.settings;
  }

  get(provider: SignInProvider): ExternalProviderSettings | undefined {
    return this.settings.find((s) => s.provider === provider);
  }

  /** The `openid-client` configuration of `settings` (discovery through the issuer). */
  configuration(settings: ExternalProviderSettings): Promise<client.Configuration> {
    const known = this.discovered.get(settings.provider);
    if (known !== undefined) return known;
    const found = client
      .discovery(
        new URL(settings.issuer),
        settings.clientId,
        settings.clientSecret,
        client.ClientSecretBasic(settings.clientSecret),
        settings.insecureLoopbackForTests
          ? // A loopback test issuer over http; see insecureLoopbackAllowed.
            // eslint-disable-next-line @typescript-eslint/no-deprecated
            { execute: [client.allowInsecureRequests] }
          : {},
      )
      .catch((err: unknown) => {
        this.discovered.delete(settings.provider);
        throw err;
      });
    this.discovered.set(settings.provider, found);
    return found;
  }
}
