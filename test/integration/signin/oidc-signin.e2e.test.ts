/**
 * OIDC and Google sign-in end to end (issue 42): a real OpenID Provider (`oidc-provider`) as its
 * own process, the real `occ api` as another, and a browser played with plain HTTP through the
 * provider's own login and consent pages. Everything asserted is read back from the HTTP
 * answers and the database. The live `/openapi.json` of that API (with single sign-on) generates
 * the CLI's committed client.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { OpenAPI3 } from "openapi-typescript";
import { describe, expect, it } from "vitest";
import { clientTypesOf, GENERATED_CLIENT, REGENERATE } from "../../../tools/openapi-client.js";
import { documentedBlock, filled, runCommand, shown } from "../../harness/doc-blocks.js";
import { Browser } from "../../harness/oidc-provider.js";
import { PW, useOidcSignInStack } from "./oidc-stack.js";

const stack = useOidcSignInStack();
const { start, isCallback, principalOf, failures } = stack;

describe("OIDC sign-in", () => {
  it("signs in through the provider's own pages; the first sign-in makes a user with no grants", async () => {
    const browser = new Browser();
    const refused = await browser.signIn(start("oidc"), "ada", "wrong password");
    expect(refused.status).toBe(401); // the provider's own login form checked the password

    const page = await browser.signIn(start("oidc"), "ada", PW);
    expect(page.url).toBe(`${stack.apiUrl}/auth/whoami`);
    expect(page.status).toBe(200);
    const who = JSON.parse(page.text) as {
      data: { principal: { name: string; kind: string }; credential: { method: string } };
    };
    expect(who.data.principal).toMatchObject({ name: "ada@example.com", kind: "user" });
    expect(who.data.credential.method).toBe("oidc");
    expect(
      browser.visited.some((u) => u.startsWith(`${stack.idp.issuers.idp ?? "?"}/interaction/`)),
    ).toBe(true);

    const principal = await principalOf("sub-ada");
    expect(principal).toMatchObject({ kind: "user", name: "ada@example.com" });
    const grants = await stack.database.db.query("SELECT 1 FROM bindings WHERE principal_id = $1", [
      principal?.id ?? "",
    ]);
    expect(grants.rows).toHaveLength(0);

    // A second sign-in finds the same principal by (issuer, subject).
    await new Browser().signIn(start("oidc"), "ada", PW);
    const identities = await stack.database.db.query(
      "SELECT last_sign_in_at FROM external_identities WHERE subject = 'sub-ada'",
    );
    expect(identities.rows).toHaveLength(1);
  });

  it.each([
    ["bob", "not_allowed", "not allowed"],
    ["eve", "email_unverified", "not verified"],
  ])("refuses %s (%s) with a reason and an audit event", async (login, refusal, words) => {
    const page = await new Browser().signIn(start("oidc"), login, PW);
    expect(page.status).toBe(403);
    expect((JSON.parse(page.text) as { error: { message: string } }).error.message).toContain(
      words,
    );
    expect(await principalOf(`sub-${login}`)).toBeUndefined();
    expect(await failures(`sub-${login}`)).toEqual([refusal]);
  });

  it("admits by group (allowedGroups) an address outside the allowed domains", async () => {
    const page = await new Browser().signIn(start("oidc"), "carl", PW);
    expect(page.status).toBe(200);
    expect(await principalOf("sub-carl")).toMatchObject({ name: "carl@other.org" });
  });

  it("groupRoles: a binding added at sign-in is removed at the next one after leaving the group", async () => {
    const bindings = async () => {
      const principal = await principalOf("sub-pat");
      const res = await stack.database.db.query<{ role_id: string; marked: boolean }>(
        `SELECT b.role_id, EXISTS (SELECT 1 FROM group_bindings g WHERE g.binding_id = b.id) AS marked
         FROM bindings b WHERE b.principal_id = $1`,
        [principal?.id ?? ""],
      );
      return res.rows;
    };
    expect((await new Browser().signIn(start("oidc"), "pat", PW)).status).toBe(200);
    expect(await bindings()).toEqual([{ role_id: "role_oidc_viewer", marked: true }]);
    await stack.idp.updateAccount("idp", "pat", { groups: [] });
    expect((await new Browser().signIn(start("oidc"), "pat", PW)).status).toBe(200);
    expect(await bindings()).toEqual([]);
  });
});

describe("Google sign-in", () => {
  it("admits a Workspace account of the allowed domain (hd) and refuses a consumer account", async () => {
    expect((await new Browser().signIn(start("google"), "gina", PW)).status).toBe(200);
    expect(await principalOf("sub-gina")).toMatchObject({ name: "gina@example.com" });
    const page = await new Browser().signIn(start("google"), "gus", PW);
    expect(page.status).toBe(403);
    expect(page.text).toContain("Google Workspace domain");
    expect(await failures("sub-gus")).toEqual(["hosted_domain_mismatch"]);
  });
});

describe("callbacks", () => {
  it("refuses a replayed callback, a wrong state, another browser, a code of another request (PKCE), a nonce mismatch", async () => {
    const browser = new Browser();
    const first = await browser.signIn(start("oidc"), "rae", PW, isCallback);
    const second = await browser.signIn(start("oidc"), "rae", PW, isCallback);
    const callbackA = new URL(first.headers.get("location") ?? "");
    const callbackB = new URL(second.headers.get("location") ?? "");
    expect(isCallback(callbackA.toString())).toBe(true);

    // B's code under A's state: A's PKCE verifier does not match the code's challenge.
    const swapped = new URL(callbackA);
    swapped.searchParams.set("code", callbackB.searchParams.get("code") ?? "");
    const pkce = await browser.request(swapped.toString());
    expect(pkce.status).toBe(401);
    // A's state was consumed by that attempt: its own code cannot be used after it either.
    expect((await browser.request(callbackA.toString())).status).toBe(401);

    const third = await browser.signIn(start("oidc"), "rae", PW, isCallback);
    const callbackC = new URL(third.headers.get("location") ?? "");
    const forged = new URL(callbackC);
    forged.searchParams.set("state", "forged-state-value");
    expect((await browser.request(forged.toString())).status).toBe(401);
    expect((await new Browser().request(callbackC.toString())).status).toBe(401);

    // An ID token whose nonce is not the request's (the stored nonce changed under it): the
    // token is signed and fresh, and openid-client still refuses it.
    const fifth = await browser.signIn(start("oidc"), "rae", PW, isCallback);
    const callbackE = new URL(fifth.headers.get("location") ?? "");
    const stateHash = createHash("sha256")
      .update(callbackE.searchParams.get("state") ?? "")
      .digest("hex");
    await stack.database.db.query(
      "UPDATE oidc_requests SET nonce = 'not-the-nonce-sent' WHERE state_sha256 = $1",
      [stateHash],
    );
    const nonce = await browser.request(callbackE.toString());
    expect(nonce.status).toBe(401);
    expect(nonce.text).toContain("could not be verified");

    const fourth = await browser.signIn(start("oidc"), "rae", PW, isCallback);
    const callbackD = fourth.headers.get("location") ?? "";
    const ok = await browser.request(callbackD);
    expect(ok.status).toBe(302);
    expect(ok.headers.getSetCookie().some((c) => c.startsWith("occ_session="))).toBe(true);
    const replay = await browser.request(callbackD);
    expect(replay.status).toBe(401);
    expect(replay.text).toContain("not valid");
    for (const text of [pkce.text, replay.text])
      expect(text).not.toContain(callbackC.searchParams.get("code") ?? "?");
  });
});

describe("the CLI (docs/operations.md, Configuring OIDC and Google)", () => {
  const cliEnv = () => ({
    XDG_CONFIG_HOME: join(stack.dir, "xdg"),
    OCC_API_KEY: "",
    PATH: `${join(stack.dir, "bin")}:${process.env.PATH ?? ""}`,
  });

  /** The documented `occ login --provider oidc`, with the test as the person at the browser. */
  async function cliLogin(login: string) {
    const [command = ""] = documentedBlock("oidc-login").commands;
    const run = filled(command, {
      "https://occ.example.com": stack.apiUrl,
      "--provider oidc": "--provider oidc --no-browser --timeout 60",
    });
    const child = spawn("bash", ["-o", "pipefail", "-c", run], {
      env: { ...process.env, ...cliEnv() },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const output = { stdout: "", stderr: "" };
    child.stdout.on("data", (c: Buffer) => (output.stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output.stderr += c.toString()));
    const exited = new Promise<number | null>((r) => child.once("close", r));
    const deadline = Date.now() + 30_000;
    let url: string | undefined;
    while (url === undefined && Date.now() < deadline && child.exitCode === null) {
      url = /^\s+(http:\/\/\S+\/auth\/oidc\/start\S+)$/m.exec(output.stderr)?.[1];
      if (url === undefined) await new Promise((r) => setTimeout(r, 100));
    }
    if (url === undefined) throw new Error(`occ login printed no URL:\n${output.stderr}`);
    const page = await new Browser().signIn(url, login, PW);
    return { page, status: await exited, ...output };
  }

  it("occ login --provider oidc: loopback redirect with PKCE, the session stored as for passwords", async () => {
    const login = await cliLogin("cli");
    expect(login.page.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?code=/);
    expect(login.page.status).toBe(200);
    expect(login.status, login.stderr).toBe(0);
    expect(login.stdout).toContain("signed in to");
    const [, whoami = ""] = documentedBlock("oidc-login").commands;
    const who = runCommand(filled(whoami, { "https://occ.example.com": stack.apiUrl }), {
      cwd: stack.dir,
      env: cliEnv(),
    });
    expect(who.code, shown(who)).toBe(0);
    expect(who.stdout).toMatch(/^cli@example\.com \(user prn_\S+\) by oidc session/);
    // The hand-off code in the loopback URL is single-use and useless without the verifier.
    const code = new URL(login.page.url).searchParams.get("code") ?? "";
    const stolen = await fetch(`${stack.apiUrl}/auth/oidc/cli-token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code, verifier: "x".repeat(43) }),
    });
    expect(stolen.status).toBe(401);
  });

  it("occ login --provider oidc: a refused person is told why", async () => {
    const login = await cliLogin("bob");
    expect(login.page.status).toBe(403);
    expect(login.status).toBe(1);
    expect(login.stderr).toContain("sign-in refused (not_allowed)");
  });

  it("occ identities link, list and unlink (the documented commands)", async () => {
    const { database: db, idp: provider } = stack;
    const made = await fetch(`${stack.apiUrl}/principals`, {
      method: "POST",
      headers: { authorization: `Bearer ${db.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ kind: "user", name: "Lin (before single sign-on)" }),
    });
    const id = ((await made.json()) as { data: { id: string } }).data.id;
    const opts = {
      cwd: stack.dir,
      env: { ...cliEnv(), OCC_API_URL: stack.apiUrl, OCC_API_KEY: db.apiKey },
      fill: {
        "prn_…": id,
        "https://idp.example.com": provider.issuers.idp ?? "",
        "248289761001": "sub-lin",
        "ada@example.com": "lin@example.com",
      },
    };
    const [link = "", list = "", unlink = ""] = documentedBlock("oidc-identities").commands;
    for (const command of [link, list]) {
      const r = runCommand(filled(command, opts.fill), opts);
      expect(r.code, shown(r)).toBe(0);
      if (command === list) expect(r.stdout).toContain("sub-lin");
    }
    // Linked: lin's first sign-in lands on that principal, no new one is made.
    expect((await new Browser().signIn(start("oidc"), "lin", PW)).status).toBe(200);
    expect((await principalOf("sub-lin"))?.id).toBe(id);
    const r = runCommand(filled(unlink, opts.fill), opts);
    expect(r.code, shown(r)).toBe(0);
    expect(await principalOf("sub-lin")).toBeUndefined();
  });

  it("the live /openapi.json generates the CLI's committed client (npm run generate:client)", async () => {
    const served = await fetch(`${stack.apiUrl}/openapi.json`);
    expect(served.status).toBe(200);
    const now = await clientTypesOf((await served.json()) as OpenAPI3);
    expect(now === (await readFile(GENERATED_CLIENT, "utf8")), `run ${REGENERATE}`).toBe(true);
  });
});
