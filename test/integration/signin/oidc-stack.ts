/**
 * The stack of the OIDC and Google sign-in suite (issue 42): a real OpenID Provider process
 * with two issuers (the OIDC provider and a stand-in for Google), the real `occ api` on a
 * bootstrapped database configured for both, and an operator folder (bin/occ) for the
 * documented commands. One per file, started before its tests and stopped after them.
 */
import { createServer } from "node:net";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, inject } from "vitest";
import { createBootstrappedDatabase, type BootstrappedDatabase } from "../../harness/db.js";
import { operatorFolder } from "../../harness/doc-blocks.js";
import { startOcc, type OccProcess } from "../../harness/occ.js";
import {
  startOidcProvider,
  type OidcProviderProcess,
  type TestAccount,
} from "../../harness/oidc-provider.js";

const SECRET = "occ-test-client-secret-0123456789abcdef";
export const PW = "correct horse battery";

const account = (login: string, over: Partial<TestAccount> = {}): TestAccount => ({
  login,
  password: PW,
  sub: `sub-${login}`,
  email: `${login}@example.com`,
  ...over,
});

const IDP_ACCOUNTS: readonly TestAccount[] = [
  account("ada"),
  account("bob", { email: "bob@other.org" }),
  account("eve", { email_verified: false }),
  account("carl", { email: "carl@other.org", groups: ["contractors"] }),
  account("pat", { groups: ["platform-admins"] }),
  account("rae"),
  account("cli"),
  account("lin"),
];
const GOOGLE_ACCOUNTS: readonly TestAccount[] = [
  account("gina", { hd: "example.com" }),
  account("gus"), // an example.com address without `hd`: a consumer account
];

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  await new Promise((r) => server.close(r));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** What the stack's tests read: its folder, the API's URL, the database, the provider. */
export class OidcSignInStack {
  dir = "";
  apiUrl = "";
  #database: BootstrappedDatabase | undefined;
  #idp: OidcProviderProcess | undefined;
  #api: OccProcess | undefined;

  /** Set by beforeAll (a test never runs without them). */
  get database(): BootstrappedDatabase {
    if (this.#database === undefined) throw new Error("setup did not finish");
    return this.#database;
  }
  get idp(): OidcProviderProcess {
    if (this.#idp === undefined) throw new Error("setup did not finish");
    return this.#idp;
  }

  /** The URL a browser opens to sign in with `provider`, coming back to `redirect`. */
  readonly start = (provider: "oidc" | "google", redirect = "/auth/whoami"): string =>
    `${this.apiUrl}/auth/oidc/start?provider=${provider}&redirect=${encodeURIComponent(redirect)}`;
  readonly isCallback = (url: string): boolean =>
    url.startsWith(`${this.apiUrl}/auth/oidc/callback`);

  /** The principal an external subject signed in as, if any. */
  readonly principalOf = async (subject: string) => {
    const res = await this.database.db.query<{ id: string; kind: string; name: string }>(
      `SELECT p.id, p.kind, p.name FROM external_identities i JOIN principals p ON p.id = i.principal_id
     WHERE i.subject = $1`,
      [subject],
    );
    return res.rows[0];
  };

  /** The reasons of the audited failed sign-ins of a subject. */
  readonly failures = async (subject: string): Promise<string[]> => {
    const res = await this.database.db.query<{ details: { reason: string; subject: string } }>(
      `SELECT details FROM audit_events WHERE action = 'auth.sign_in' AND outcome = 'failure'
     AND details->>'subject' = $1`,
      [subject],
    );
    return res.rows.map((r) => r.details.reason);
  };

  async up(): Promise<void> {
    this.dir = await mkdtemp(join(tmpdir(), "occ-oidc-"));
    await operatorFolder(this.dir); // bin/occ for the documented commands
    const port = await freePort();
    this.apiUrl = `http://127.0.0.1:${port}`;
    const client = {
      client_id: "occ",
      client_secret: SECRET,
      redirect_uris: [`${this.apiUrl}/auth/oidc/callback`],
    };
    const [db, provider] = await Promise.all([
      createBootstrappedDatabase(),
      startOidcProvider([
        // The OIDC provider keeps e-mail and groups for userinfo; Google's are in the ID token.
        { name: "idp", accounts: IDP_ACCOUNTS, clients: [client], claimsInUserinfoOnly: true },
        { name: "google", accounts: GOOGLE_ACCOUNTS, clients: [client] },
      ]),
    ]);
    this.#database = db;
    this.#idp = provider;
    const admin = await db.db.query<{ principal_id: string }>(
      "SELECT principal_id FROM api_keys ORDER BY created_at LIMIT 1",
    );
    const file = async (name: string, content: string) => {
      await writeFile(join(this.dir, name), content);
      return join(this.dir, name);
    };
    const ids = { id: await file("client-id", "occ"), secret: await file("client-secret", SECRET) };
    await db.db.query("INSERT INTO roles (id, name) VALUES ('role_oidc_viewer', 'viewer')");
    const config = await file(
      "config.yaml",
      [
        "kubernetes:",
        `  kubeconfig: ${inject("env").kubeconfigs["occ-worker"]}`,
        "auth:",
        `  baseUrl: ${this.apiUrl}`,
        `  sessionKeyFile: ${await file("session-key", "k".repeat(48))}`,
        `  recoveryUserId: ${admin.rows[0]?.principal_id ?? ""}`,
        "  oidc:",
        `    issuer: ${provider.issuers.idp ?? ""}`,
        "    displayName: Test SSO",
        `    clientIdFile: ${ids.id}`,
        `    clientSecretFile: ${ids.secret}`,
        "    allowedDomains: [example.com]",
        "    allowedGroups: [contractors]",
        "    groupRoles: [{group: platform-admins, role: viewer}]",
        "  google:",
        `    clientIdFile: ${ids.id}`,
        `    clientSecretFile: ${ids.secret}`,
        "    allowedDomains: [example.com]",
        "",
      ].join("\n"),
    );
    this.#api = await startOcc(
      ["api", "--database-url", db.url, "--config", config, "--port", String(port)],
      /listening on (http:\/\/\S+)/,
      {
        env: { OCC_TEST_INSECURE_OIDC: "1", OCC_TEST_GOOGLE_ISSUER: provider.issuers.google ?? "" },
      },
    );
  }

  async down(): Promise<void> {
    await Promise.allSettled([this.#api?.stop(), this.#idp?.stop()]);
    await this.#database?.drop();
    await rm(this.dir, { recursive: true, force: true });
  }
}

export function useOidcSignInStack(): OidcSignInStack {
  const stack = new OidcSignInStack();
  beforeAll(() => stack.up());
  afterAll(() => stack.down());
  return stack;
}
