import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { NamespaceView } from "../../../src/contract/namespaces.js";
import type { RevisionView } from "../../../src/contract/agents.js";
import { revisionVerdict } from "../../../src/cli/agents-command.js";
import { apiClientFrom } from "../../../src/cli/api-client.js";
import { storeSession } from "../../../src/cli/session-store.js";
import { grantsManifest, parseSubject, readyVerdict } from "../../../src/cli/namespaces-command.js";
import { printable, render, table } from "../../../src/cli/output.js";
import { parseDuration, waitFor, WaitFailed } from "../../../src/cli/wait.js";

const ns = (over: Partial<NamespaceView>): NamespaceView => ({
  id: "ns_a",
  name: "support",
  status: "provisioning",
  placement: { mode: "managed", kubernetesNamespace: "oce-abc", uid: null, observedUid: null },
  statusReason: null,
  lastReconciledAt: null,
  createdAt: "2026-11-29T00:00:00.000Z",
  ...over,
});

describe("output", () => {
  it("aligns table columns under upper-case headers and keeps cells on one line", () => {
    const out = table(
      [
        { a: "x", b: "multi\nline" },
        { a: "longer", b: "y" },
      ],
      [
        { header: "a", cell: (r) => r.a },
        { header: "b col", cell: (r) => r.b },
      ],
    );
    expect(out.split("\n")).toEqual(["A        B COL", "x        multi\\nline", "longer   y"]);
  });

  it.each([
    ["a right-to-left override", "evil\u202Etxt.exe", "evil\\u{202E}txt.exe"],
    ["a right-to-left isolate", "a\u2067b", "a\\u{2067}b"],
    ["a zero-width space", "ad\u200Bmin", "ad\\u{200B}min"],
    ["a BOM", "\uFEFFadmin", "\\u{FEFF}admin"],
    ["a no-break space", "a\u00A0b", "a\\u{00A0}b"],
    ["a trailing Hangul filler (stored before the policy)", "admin\u3164", "admin\\u{3164}"],
    ["a blank braille pattern", "admin\u2800", "admin\\u{2800}"],
    ["a variation selector", "a\uFE0Fb", "a\\u{FE0F}b"],
    ["ESC (a terminal escape)", "\u001b[31mred", "\\u{001B}[31mred"],
    ["a tab and CR", "a\tb\rc", "a\\tb\\rc"],
    ["an unpaired surrogate", "a\uD800", "a\\u{D800}"],
    ["a literal backslash (so escapes cannot be faked)", "a\\u{202E}", "a\\\\u{202E}"],
    ["printable text, emoji and accents unchanged", "café 😀 客服", "café 😀 客服"],
  ])("tables escape %s", (_label, name, shown) => {
    expect(printable(name)).toBe(shown);
    expect(table([{ name }], [{ header: "name", cell: (r) => r.name }])).toBe(`NAME\n${shown}`);
  });

  it.each(["json", "yaml"] as const)(
    "%s lists are {items: [...]} and single objects are bare",
    (f) => {
      const decode = (s: string): unknown => (f === "json" ? JSON.parse(s) : parse(s));
      expect(decode(render(f, [ns({})], []))).toEqual({ items: [ns({})] });
      expect(decode(render(f, ns({}), []))).toEqual(ns({}));
    },
  );
});

describe("readyVerdict", () => {
  it.each([
    [ns({ status: "provisioning" }), "waiting"],
    [ns({ status: "ready" }), "done"],
    [ns({ status: "failed" }), "failed"],
    [ns({ status: "deleting" }), "failed"],
    [null, "failed"],
  ] as const)("%j → %s", (n, kind) => {
    expect(readyVerdict(n).kind).toBe(kind);
  });

  it("a failure carries the status reason, which states the fix", () => {
    const v = readyVerdict(
      ns({
        status: "failed",
        statusReason: {
          code: "KUBERNETES_OWNERSHIP_CONFLICT",
          message: "clear the markers",
          since: "2026-11-29T00:00:00.000Z",
        },
      }),
    );
    expect(v).toEqual({
      kind: "failed",
      message: "ns_a is failed: KUBERNETES_OWNERSHIP_CONFLICT: clear the markers",
    });
  });
});

describe("parseSubject and grants", () => {
  it.each([
    [
      "openclaw-system:occ-worker",
      { kind: "ServiceAccount", namespace: "openclaw-system", name: "occ-worker" },
    ],
    ["user:occ-worker", { kind: "User", name: "occ-worker" }],
    [
      "openclaw-system/occ-worker",
      { kind: "ServiceAccount", namespace: "openclaw-system", name: "occ-worker" },
    ],
  ])("%s", (text, subject) => {
    expect(parseSubject("--worker", text)).toEqual(subject);
  });

  it.each(["", "worker", "Bad:Name", ":x", "ns:"])("refuses %j, naming the flag", (text) => {
    expect(() => parseSubject("--worker", text)).toThrow(/--worker: .* e\.g\./);
  });

  it("prints two RoleBindings to the tenant roles in the tenant namespace", () => {
    const docs = grantsManifest(
      "oce-abc",
      { kind: "User", name: "w" },
      { kind: "ServiceAccount", namespace: "s", name: "a" },
    )
      .split("\n---\n")
      .map(
        (d) =>
          parse(d) as { kind: string; metadata: { namespace: string }; roleRef: { name: string } },
      );
    expect(docs.map((d) => [d.kind, d.metadata.namespace, d.roleRef.name])).toEqual([
      ["RoleBinding", "oce-abc", "openclaw-enterprise-tenant-worker"],
      ["RoleBinding", "oce-abc", "openclaw-enterprise-tenant-api"],
    ]);
  });

  it("with --openshell adds the worker's binding to the OpenShell tenant role", () => {
    const docs = grantsManifest(
      "oce-abc",
      { kind: "User", name: "w" },
      { kind: "User", name: "a" },
      true,
    )
      .split("\n---\n")
      .map((d) => parse(d) as { roleRef: { name: string }; subjects: { name: string }[] });
    expect(docs.map((d) => [d.roleRef.name, d.subjects[0]?.name])).toEqual([
      ["openclaw-enterprise-tenant-worker", "w"],
      ["openclaw-enterprise-tenant-api", "a"],
      ["openclaw-enterprise-tenant-openshell", "w"],
    ]);
  });
});

describe("wait", () => {
  it.each([
    ["90s", 90_000],
    ["5m", 300_000],
    ["1h", 3_600_000],
    ["250ms", 250],
    ["12", 12_000],
  ])("parseDuration(%s) = %d", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it("refuses a malformed duration, naming the flag", () => {
    expect(() => parseDuration("soon")).toThrow(/--timeout: "soon"/);
  });

  it("prints each distinct progress line once and returns the settled value", async () => {
    const values = [1, 1, 2, 3];
    const lines: string[] = [];
    const got = await waitFor({
      what: "3",
      poll: () => Promise.resolve(values.shift() ?? 3),
      judge: (v) => (v === 3 ? { kind: "done" } : { kind: "waiting" }),
      progress: (v) => `at ${v}`,
      timeoutMs: 10_000,
      intervalMs: 1,
      say: (l) => lines.push(l),
    });
    expect(got).toBe(3);
    expect(lines).toEqual(["at 1", "at 2", "at 3"]);
  });

  it("times out naming what it waited for and the last state", async () => {
    await expect(
      waitFor({
        what: "ns_a to become ready",
        poll: () => Promise.resolve(0),
        judge: () => ({ kind: "waiting" }),
        progress: () => "ns_a: provisioning",
        timeoutMs: 5,
        intervalMs: 2,
        say: () => undefined,
      }),
    ).rejects.toThrow(
      new WaitFailed(
        "timed out after 0 s waiting for ns_a to become ready; last: ns_a: provisioning",
      ),
    );
  });
});

describe("apiClientFrom", () => {
  it("names the missing server and key with the fix", async () => {
    const none = { XDG_CONFIG_HOME: join(tmpdir(), `occ-no-config-${process.pid}`) };
    await expect(apiClientFrom({}, none)).rejects.toThrow(
      /set OCC_API_URL, pass --server, or occ login/,
    );
    await expect(apiClientFrom({}, { ...none, OCC_API_URL: "http://x" })).rejects.toThrow(
      /not signed in to http:\/\/x: run occ login, or set OCC_API_KEY or pass --api-key-file/,
    );
  });

  it("uses the session occ login stored, unless an API key is given", async () => {
    const env = { XDG_CONFIG_HOME: await mkdtemp(join(tmpdir(), "occ-config-")) };
    await storeSession(
      "http://127.0.0.1:1",
      { session: "occs_x.sig", user: "u", expiresAt: "" },
      env,
    );
    const stored = await apiClientFrom({}, env);
    expect(stored.server).toBe("http://127.0.0.1:1");
    const mode = (await stat(join(env.XDG_CONFIG_HOME, "occ", "sessions.json"))).mode & 0o777;
    expect(mode).toBe(0o600);
    await expect(apiClientFrom({}, { ...env, OCC_API_KEY: "k" })).resolves.toBeDefined();
    await rm(env.XDG_CONFIG_HOME, { recursive: true, force: true });
  });

  it("says the server is unreachable instead of a bare fetch error", async () => {
    const client = await apiClientFrom(
      {},
      { OCC_API_URL: "http://127.0.0.1:1/", OCC_API_KEY: "k" },
    );
    await expect(client.request("GET", "/namespaces")).rejects.toThrow(
      /cannot reach the OCC API at http:\/\/127\.0\.0\.1:1: .*check --server/,
    );
  });
});

describe("revisionVerdict (occ agents deploy --wait)", () => {
  const rev = (status: RevisionView["status"], code?: string): RevisionView => ({
    id: "rev_1",
    agentId: "agt_1",
    namespaceId: "ns_a",
    number: 2,
    configurationId: "cfg_1",
    configurationGeneration: 1,
    executionMode: "embedded",
    serviceAccountId: null,
    compute: {},
    status,
    statusReason: code === undefined ? null : { code, message: "why" },
    createdAt: "2026-11-29T00:00:00.000Z",
    activatedAt: null,
  });
  it.each([
    [rev("queued", "WORKLOAD_ROLLOUT_PENDING"), { kind: "waiting" }],
    [rev("active"), { kind: "done" }],
    [
      rev("failed", "WORKLOAD_CLAIM_MISMATCH"),
      { kind: "failed", message: "revision 2 is failed: WORKLOAD_CLAIM_MISMATCH: why" },
    ],
    [rev("superseded"), { kind: "failed", message: "revision 2 is superseded" }],
    [null, { kind: "failed", message: "the revision is gone (its Agent was deleted)" }],
  ] as const)("%#", (r, verdict) => {
    expect(revisionVerdict(r)).toEqual(verdict);
  });
});
