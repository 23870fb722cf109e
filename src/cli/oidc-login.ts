/**
 * `occ login --provider oidc|google`: sign in through an external provider from a terminal,
 * as kubelogin does. The CLI listens on 127.0.0.1:<free port>, opens (and prints) the API's
 * `/auth/oidc/start` URL with that port and the S256 challenge of a verifier only it holds;
 * the person signs in at the provider; the API exchanges the provider's code itself (it holds
 * the client secret) and sends the browser to the loopback with a one-time hand-off code; the
 * CLI exchanges that code and its verifier for a session. Another local process that catches
 * the hand-off code cannot use it without the verifier.
 */
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { Type } from "@sinclair/typebox";
import { parseAs } from "./api-client.js";
import { bodyOf, NOT_JSON, occHttpClient, sendText } from "./openapi-client.js";
import { listeningPort } from "../domain/input/unknowns.js";

const CliTokenSchema = Type.Object({
  data: Type.Object({ token: Type.String(), expiresAt: Type.String() }),
});
const ErrorSchema = Type.Object({
  error: Type.Object({ code: Type.String(), message: Type.String() }),
});

export interface OidcLoginOptions {
  readonly server: string;
  readonly provider: "oidc" | "google";
  /** Try to open the URL in a browser (`xdg-open` / `open`); the URL is printed either way. */
  readonly openBrowser: boolean;
  readonly timeoutMs: number;
  /** Where the URL and progress go (stderr). */
  readonly say: (line: string) => void;
}

const PAGE = (text: string) =>
  `<!doctype html><meta charset="utf-8"><title>occ login</title><p>${text}</p>`;

function openInBrowser(url: string): void {
  const command = process.platform === "darwin" ? "open" : "xdg-open";
  try {
    const child = spawn(command, [url], { stdio: "ignore", detached: true });
    child.on("error", () => undefined);
    child.unref();
  } catch {
    // No browser here: the printed URL is the way.
  }
}

/** Waits for one `GET /callback` on `server`; resolves its query. */
function oneCallback(server: Server, timeoutMs: number): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(
        new Error(
          `no sign-in arrived within ${Math.round(timeoutMs / 1000)} s; run occ login again`,
        ),
      );
    }, timeoutMs);
    server.on("request", (req, res) => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      if (req.method !== "GET" || url.pathname !== "/callback") {
        res.writeHead(404).end();
        return;
      }
      const error = url.searchParams.get("error");
      res
        .writeHead(error === null ? 200 : 403, { "content-type": "text/html; charset=utf-8" })
        .end(
          PAGE(
            error === null
              ? "Signed in to OCC. You may close this window and return to the terminal."
              : "Sign-in refused; the terminal shows why.",
          ),
        );
      clearTimeout(timer);
      resolve(url.searchParams);
    });
  });
}

/** Runs the loopback sign-in; resolves the session token and its expiry. */
export async function loginThroughProvider(
  opts: OidcLoginOptions,
): Promise<{ readonly token: string; readonly expiresAt: string }> {
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier, "ascii").digest("base64url");
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  try {
    const port = listeningPort(server.address());
    const start = new URL("/auth/oidc/start", opts.server);
    start.search = new URLSearchParams({
      provider: opts.provider,
      cliPort: String(port),
      cliChallenge: challenge,
    }).toString();
    const arrived = oneCallback(server, opts.timeoutMs);
    opts.say(`Open this URL in a browser to sign in:\n\n  ${start.toString()}\n`);
    if (opts.openBrowser) openInBrowser(start.toString());
    const query = await arrived;
    const refusal = query.get("error");
    if (refusal !== null) {
      throw new Error(`sign-in refused (${refusal}): ${query.get("reason") ?? "no reason given"}`);
    }
    const code = query.get("code");
    if (code === null) throw new Error("the sign-in came back without a code; run occ login again");
    const answer = await sendText(occHttpClient(opts.server), "POST", "/auth/oidc/cli-token", {
      body: { code, verifier },
    });
    const json = bodyOf(answer);
    const body = json === NOT_JSON ? {} : json;
    if (!answer.response.ok) {
      const error = parseAs(ErrorSchema, body, "POST /auth/oidc/cli-token").error;
      throw new Error(`${error.code}: ${error.message}`);
    }
    return parseAs(CliTokenSchema, body, "POST /auth/oidc/cli-token").data;
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

const WhoSchema = Type.Object({
  data: Type.Object({ principal: Type.Object({ name: Type.String() }) }),
});

/** The principal name a fresh session signs in as (`GET /auth/whoami` with it). */
export async function signedInAs(server: string, session: string): Promise<string> {
  const answer = await sendText(occHttpClient(server, session), "GET", "/auth/whoami");
  const res = answer.response;
  if (!res.ok)
    throw new Error(`the new session was not accepted (HTTP ${res.status}); run occ login again`);
  return parseAs(WhoSchema, bodyOf(answer), "GET /auth/whoami").data.principal.name;
}
