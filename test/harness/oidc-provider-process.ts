/**
 * A real OpenID Provider (`oidc-provider`, a certified implementation) as its own process, for
 * the sign-in tests: started by test/harness/oidc-provider.ts, never imported. It reads its
 * issuers from `OIDC_TEST_PROVIDERS` (JSON, {@link ProviderSpec}[]), serves each on its own
 * port (loopback unless the spec names a host; https when it carries a certificate), and prints one line `oidc-provider ready <JSON of name → issuer URL>`.
 *
 * The login page is the provider's own (its development interactions: a login form, then a
 * consent form), with one addition: the password posted to the login form must be the test
 * account's, or the form is answered 401 — so a test signs in with real credentials.
 * `PUT /test/accounts/<login>` (JSON of the account's claims) changes an account while the
 * provider runs (a person leaving a group); it exists only in this test process.
 */
import { createServer, type IncomingMessage } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import Provider, { type Configuration, type KoaContextWithOIDC } from "oidc-provider";

export interface TestAccount {
  readonly login: string;
  readonly password: string;
  readonly sub: string;
  readonly email?: string;
  readonly email_verified?: boolean;
  readonly groups?: readonly string[];
  readonly hd?: string;
}

export interface ProviderSpec {
  readonly name: string;
  /** The address to listen on (default 127.0.0.1), e.g. one that pods on a test node reach. */
  readonly host?: string;
  /** PEM certificate and key: served over https (the issuer is then `https://…`). */
  readonly tls?: { readonly cert: string; readonly key: string };
  /** Claims only from userinfo, none in the ID token but `sub` (as many providers do). */
  readonly claimsInUserinfoOnly?: boolean;
  readonly accounts: readonly TestAccount[];
  readonly clients: readonly {
    readonly client_id: string;
    readonly client_secret: string;
    readonly redirect_uris: readonly string[];
  }[];
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

async function serve(spec: ProviderSpec): Promise<string> {
  const accounts = new Map(spec.accounts.map((a) => [a.login, { ...a }]));
  const bySub = (sub: string) => [...accounts.values()].find((a) => a.sub === sub);
  const server = spec.tls === undefined ? createServer() : createHttpsServer(spec.tls);
  const host = spec.host ?? "127.0.0.1";
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const scheme = spec.tls === undefined ? "http" : "https";
  const issuer = `${scheme}://${host}:${(server.address() as AddressInfo).port}`;
  const configuration: Configuration = {
    clients: spec.clients.map((c) => ({
      client_id: c.client_id,
      client_secret: c.client_secret,
      redirect_uris: [...c.redirect_uris],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
    })),
    // Claims go into the ID token itself (as Google's do), or only into userinfo.
    conformIdTokenClaims: spec.claimsInUserinfoOnly === true,
    claims: {
      openid: ["sub"],
      email: ["email", "email_verified", "hd"],
      groups: ["groups"],
    },
    scopes: ["openid", "email", "groups", "profile"],
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ["oidc-test-provider-cookie-key-not-a-secret"] },
    findAccount: (_ctx: KoaContextWithOIDC, sub: string) => {
      const account = bySub(sub);
      if (account === undefined) return undefined;
      return {
        accountId: sub,
        claims: () => ({
          sub,
          ...(account.email === undefined ? {} : { email: account.email }),
          email_verified: account.email_verified ?? true,
          ...(account.groups === undefined ? {} : { groups: [...account.groups] }),
          ...(account.hd === undefined ? {} : { hd: account.hd }),
        }),
      };
    },
  };
  const provider = new Provider(issuer, configuration);
  const callback = provider.callback();
  server.on("request", (req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", issuer);
      const test = /^\/test\/accounts\/([^/]+)$/.exec(url.pathname);
      if (test !== null && req.method === "PUT") {
        const login = decodeURIComponent(test[1] ?? "");
        const current = accounts.get(login);
        if (current === undefined) {
          res.writeHead(404).end();
          return;
        }
        accounts.set(login, { ...current, ...(JSON.parse(await readBody(req)) as object) });
        res.writeHead(204).end();
        return;
      }
      if (req.method === "POST" && /^\/interaction\/[^/]+$/.test(url.pathname)) {
        // The login form: the account's password is checked before the provider sees the form.
        const raw = await readBody(req);
        const form = new URLSearchParams(raw);
        if (form.get("prompt") === "login") {
          const account = accounts.get(form.get("login") ?? "");
          if (account === undefined || account.password !== form.get("password")) {
            res.writeHead(401, { "content-type": "text/plain" }).end("wrong login or password");
            return;
          }
          // The provider's form posts the login; it becomes the account ID (the subject).
          form.set("login", account.sub);
        }
        (req as IncomingMessage & { body?: string }).body = form.toString();
      }
      await callback(req, res);
    })().catch((err: unknown) => {
      console.error(err);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  return issuer;
}

const specs = JSON.parse(process.env.OIDC_TEST_PROVIDERS ?? "[]") as ProviderSpec[];
const issuers: Record<string, string> = {};
for (const spec of specs) issuers[spec.name] = await serve(spec);
console.log(`oidc-provider ready ${JSON.stringify(issuers)}`);
