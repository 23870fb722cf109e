/**
 * A real OpenID Provider for the sign-in tests: `oidc-provider` started as its own node process
 * (test/harness/oidc-provider-process.ts) with test accounts and registered confidential
 * clients, one loopback port per issuer; and {@link Browser}, which plays the person's browser
 * with plain HTTP — a cookie jar, redirects followed by hand, the provider's own login and
 * consent forms parsed and posted.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { REPO_ROOT } from "./helm.js";
import type { ProviderSpec, TestAccount } from "./oidc-provider-process.js";
import type { Fetch } from "./oidc-provider-tls.js";

export type { ProviderSpec, TestAccount };

export interface OidcProviderProcess {
  /** The issuer URL of each provider, by its spec's name. */
  readonly issuers: Readonly<Record<string, string>>;
  /** Changes an account while the provider runs (e.g. its groups). */
  updateAccount(provider: string, login: string, patch: Partial<TestAccount>): Promise<void>;
  stop(): Promise<void>;
}

export async function startOidcProvider(
  specs: readonly ProviderSpec[],
): Promise<OidcProviderProcess> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", join(REPO_ROOT, "test", "harness", "oidc-provider-process.ts")],
    {
      env: { ...process.env, OIDC_TEST_PROVIDERS: JSON.stringify(specs), NODE_ENV: "test" },
      stdio: ["ignore", "pipe", "pipe"],
      cwd: REPO_ROOT,
    },
  );
  const output: string[] = [];
  const issuers = await new Promise<Record<string, string>>((resolve, reject) => {
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on("line", (line) => {
        output.push(line);
        const m = /^oidc-provider ready (\{.*\})$/.exec(line);
        if (m !== null) resolve(JSON.parse(m[1] ?? "{}") as Record<string, string>);
      });
    }
    child.once("exit", (code) => {
      reject(new Error(`oidc-provider exited ${code}:\n${output.join("\n")}`));
    });
  });
  return {
    issuers,
    async updateAccount(provider, login, patch) {
      const issuer = issuers[provider];
      if (issuer === undefined) throw new Error(`no provider ${provider}`);
      const res = await fetch(`${issuer}/test/accounts/${encodeURIComponent(login)}`, {
        method: "PUT",
        body: JSON.stringify(patch),
      });
      if (res.status !== 204) throw new Error(`updateAccount: ${res.status}`);
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** One response the browser arrived at. */
export interface Page {
  readonly url: string;
  readonly status: number;
  readonly text: string;
  readonly headers: Headers;
}

const decode = (s: string) =>
  s
    .replace(/&amp;/g, "&")
    .replace(/&quot;/g, '"')
    .replace(/&#x2F;/g, "/")
    .replace(/&#39;/g, "'");

/**
 * A browser without a browser: cookies by host (as browsers keep them: not by port),
 * redirects followed one by one, forms parsed from the HTML.
 */
export class Browser {
  /** `send`: how requests go out (default `fetch`; e.g. one that trusts a test CA). */
  constructor(
    private readonly send: Fetch = (url, init) => fetch(url, { ...init, redirect: "manual" }),
  ) {}

  private readonly jar = new Map<string, Map<string, string>>();
  /** Every URL visited, in order (redirects included). */
  readonly visited: string[] = [];

  cookie(url: string, name: string): string | undefined {
    return this.jar.get(new URL(url).hostname)?.get(name);
  }

  private store(url: string, headers: Headers): void {
    const host = new URL(url).hostname;
    const cookies = this.jar.get(host) ?? new Map<string, string>();
    this.jar.set(host, cookies);
    for (const line of headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === "" || /max-age=0/i.test(line)) cookies.delete(name);
      else cookies.set(name, value);
    }
  }

  /** One request, no redirect followed. */
  async request(
    url: string,
    init: { method?: string; form?: Record<string, string> } = {},
  ): Promise<Page> {
    this.visited.push(url);
    const cookies = [...(this.jar.get(new URL(url).hostname) ?? new Map<string, string>())]
      .map(([k, v]) => `${k}=${v}`)
      .join("; ");
    const res = await this.send(url, {
      method: init.method ?? (init.form === undefined ? "GET" : "POST"),
      headers: {
        ...(cookies === "" ? {} : { cookie: cookies }),
        ...(init.form === undefined ? {} : { "content-type": "application/x-www-form-urlencoded" }),
      },
      ...(init.form === undefined ? {} : { body: new URLSearchParams(init.form).toString() }),
    });
    this.store(url, res.headers);
    return { url, status: res.status, text: await res.text(), headers: res.headers };
  }

  /**
   * Requests `url` and follows redirects; stops before a redirect whose target `stopBefore`
   * accepts, answering that redirect's page (its `location` header names the target).
   */
  async follow(
    url: string,
    init: { form?: Record<string, string>; stopBefore?: (target: string) => boolean } = {},
  ): Promise<Page> {
    let page = await this.request(url, init.form === undefined ? {} : { form: init.form });
    for (let hops = 0; hops < 20; hops++) {
      const location = page.headers.get("location");
      if (page.status < 300 || page.status >= 400 || location === null) return page;
      const next = new URL(location, page.url).toString();
      if (init.stopBefore?.(next) === true) return page;
      page = await this.request(next);
    }
    throw new Error(`too many redirects from ${url}`);
  }

  /**
   * From `startUrl` (the API's `/auth/oidc/start…`) through the provider's own login page and
   * consent page, back to where the provider redirects; stops before a redirect `stopBefore`
   * accepts (e.g. the API's callback, to replay or forge it).
   */
  async signIn(
    startUrl: string,
    login: string,
    password: string,
    stopBefore?: (target: string) => boolean,
  ): Promise<Page> {
    const opts = stopBefore === undefined ? {} : { stopBefore };
    let page = await this.follow(startUrl, opts);
    for (let forms = 0; forms < 4; forms++) {
      const action = /<form[^>]*action="([^"]+)"[^>]*method="post"/i.exec(page.text)?.[1];
      const prompt = /name="prompt" value="([a-z]+)"/.exec(page.text)?.[1];
      if (action === undefined || prompt === undefined) return page;
      const form: Record<string, string> =
        prompt === "login" ? { prompt, login, password } : { prompt };
      page = await this.follow(new URL(decode(action), page.url).toString(), { form, ...opts });
    }
    return page;
  }
}
