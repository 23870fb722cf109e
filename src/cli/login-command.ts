/**
 * `occ login`, `occ logout`, `occ whoami` (issue 42). `login` signs in with a password
 * (`--password-file`, `-` for standard input, or a prompt without echo) and stores the session
 * for the server (session-store.ts); the other client commands then use it unless an API key
 * is given explicitly (`OCC_API_KEY`, `--api-key-file`). Nothing here prints a password or a
 * session value.
 */
import { Option, type Command } from "commander";
import { WhoAmISchema } from "../contract/auth.js";
import { ApiRequestError, apiClientFrom, requestAs, withApiClientOptions } from "./api-client.js";
import { loginThroughProvider, signedInAs } from "./oidc-login.js";
import {
  bodyOf,
  errorOf,
  NOT_JSON,
  occHttpClient,
  sendText,
  type TextAnswer,
} from "./openapi-client.js";
import { passwordFromFile, promptPassword } from "./password-input.js";
import {
  currentServer,
  forgetSession,
  serverKey,
  sessionsFile,
  storedSession,
  storeSession,
} from "./session-store.js";
import { messageOf } from "../domain/input/unknowns.js";

async function serverOf(flag: string | undefined, current = false): Promise<string> {
  const fallback = current ? await currentServer() : undefined;
  const server = serverKey(flag ?? process.env.OCC_API_URL ?? fallback ?? "");
  if (server === "") throw new Error("no API server: set OCC_API_URL or pass --server");
  return server;
}

/** The signed session value from a `Set-Cookie: occ_session=…` header. */
function sessionFromSetCookie(headers: Headers): { value: string; expires: string } | undefined {
  for (const line of headers.getSetCookie()) {
    const m = /^occ_session=([^;]+)/.exec(line);
    if (m?.[1] === undefined) continue;
    const expires = /;\s*Expires=([^;]+)/i.exec(line)?.[1];
    return {
      value: decodeURIComponent(m[1]),
      expires: expires === undefined ? "" : new Date(expires).toISOString(),
    };
  }
  return undefined;
}

async function signIn(server: string, user: string, password: string) {
  let answer: TextAnswer;
  try {
    answer = await sendText(occHttpClient(server), "POST", "/auth/password", {
      body: { user, password },
    });
  } catch (err) {
    throw new Error(`cannot reach the OCC API at ${server}: ${messageOf(err)}`);
  }
  const res = answer.response;
  if (res.status !== 204) {
    const json = bodyOf(answer);
    const error = errorOf(json === NOT_JSON ? {} : json);
    throw new ApiRequestError(
      res.status,
      error.code ?? `HTTP_${res.status}`,
      error.message ?? res.statusText,
    );
  }
  const session = sessionFromSetCookie(res.headers);
  if (session === undefined) throw new Error("the API answered sign-in without a session cookie");
  return session;
}

interface LoginFlags {
  server?: string;
  user?: string;
  passwordFile?: string;
  provider?: "oidc" | "google";
  browser: boolean;
  timeout: string;
}

export function registerLoginCommands(program: Command): void {
  program
    .command("login")
    .description(
      "sign in with a password, or through a provider in a browser (--provider), and keep the session for this server (~/.config/occ)",
    )
    .option("--server <url>", "OCC API base URL (default: $OCC_API_URL)")
    .option("--user <name>", "the user's principal name (password sign-in)")
    .option("--password-file <file>", "read the password from this file (- for standard input)")
    .addOption(
      new Option("--provider <provider>", "sign in through oidc or google instead").choices([
        "oidc",
        "google",
      ]),
    )
    .option("--no-browser", "with --provider: only print the URL to open")
    .option("--timeout <seconds>", "with --provider: how long to wait for the browser", "300")
    .action(async (opts: LoginFlags) => {
      const server = await serverOf(opts.server);
      if (opts.provider !== undefined) {
        const session = await loginThroughProvider({
          server,
          provider: opts.provider,
          openBrowser: opts.browser,
          timeoutMs: Number(opts.timeout) * 1000,
          say: (line) => {
            process.stderr.write(`${line}\n`);
          },
        });
        const user = await signedInAs(server, session.token);
        await storeSession(server, { session: session.token, user, expiresAt: session.expiresAt });
        console.log(`signed in to ${server} as ${user}; the session is kept in ${sessionsFile()}`);
        return;
      }
      if (opts.user === undefined)
        throw new Error("pass --user <name> (or --provider oidc|google)");
      const password =
        opts.passwordFile === undefined
          ? await promptPassword(`password for ${opts.user} at ${server}: `, "--password-file")
          : await passwordFromFile(opts.passwordFile, "--password-file");
      const session = await signIn(server, opts.user, password);
      await storeSession(server, {
        session: session.value,
        user: opts.user,
        expiresAt: session.expires,
      });
      console.log(
        `signed in to ${server} as ${opts.user}; the session is kept in ${sessionsFile()}`,
      );
    });

  withApiClientOptions(
    program.command("whoami").description("show who the API takes you for, and how you signed in"),
  ).action(async (opts: { server?: string; apiKeyFile?: string }) => {
    const client = await apiClientFrom(opts);
    const me = await requestAs(client, WhoAmISchema, "GET", "/auth/whoami");
    const how =
      me.credential.kind === "api_key"
        ? `API key ${me.credential.keyId}`
        : `${me.credential.method} session ${me.credential.sessionId}, until ${me.credential.expiresAt}`;
    console.log(`${me.principal.name} (${me.principal.kind} ${me.principal.id}) by ${how}`);
  });

  program
    .command("logout")
    .description("end the stored session for this server and forget it")
    .option("--server <url>", "OCC API base URL (default: $OCC_API_URL)")
    .action(async (opts: { server?: string }) => {
      const server = await serverOf(opts.server, true);
      if ((await storedSession(server)) === undefined) {
        console.log(`no session stored for ${server}`);
        return;
      }
      try {
        const client = await apiClientFrom({ server }, { ...process.env, OCC_API_KEY: "" });
        await client.request("POST", "/auth/logout");
      } catch (err) {
        // An ended session is already signed out; anything else is reported after forgetting.
        if (!(err instanceof ApiRequestError && err.status === 401)) {
          await forgetSession(server);
          throw err;
        }
      }
      const had = await forgetSession(server);
      console.log(had ? `signed out of ${server}` : `no session stored for ${server}`);
    });
}
