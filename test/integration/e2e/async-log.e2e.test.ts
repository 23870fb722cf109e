/**
 * The API's log is written asynchronously (issue 20, P5) and still complete: a real `occ api`
 * process answers a burst of creates, is sent SIGTERM the moment the last answer arrives, and
 * its stdout — read until the pipe closes — holds one "request completed" line for every
 * request it answered, then its "api stopped" line last. Counted against the rows the creates
 * stored in PostgreSQL.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createTestDatabase } from "../../harness/db.js";
import { occ, startOcc } from "../../harness/occ.js";

let dir: string;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let common: string[];
let apiKey: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "occ-async-log-"));
  database = await createTestDatabase();
  const config = join(dir, "config.yaml");
  await writeFile(config, `kubernetes:\n  kubeconfig: ${inject("env").kubeconfigs["occ-api"]}\n`);
  common = ["--database-url", database.url, "--config", config];
  occ(["migrate", "--database-url", database.url]);
  const keyFile = join(dir, "key");
  occ(["bootstrap", ...common, "--api-key-file", keyFile]);
  apiKey = (await readFile(keyFile, "utf8")).trim();
}, 120_000);

afterAll(async () => {
  await database.drop();
  await rm(dir, { recursive: true, force: true });
});

describe("asynchronous API log", () => {
  it("loses no line when SIGTERM follows the last answer at once", async () => {
    const api = await startOcc(["api", ...common, "--port", "0"], /listening on (http:\/\/\S+)/);
    const url = api.match[1] ?? "";

    const clients = 8;
    const each = 40;
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        for (let i = 0; i < each; i++) {
          const res = await fetch(`${url}/namespaces`, {
            method: "POST",
            headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
            body: JSON.stringify({ name: `log-${c}-${i}` }),
          });
          await res.arrayBuffer();
          statuses.push(res.status);
        }
      }),
    );
    api.child.kill("SIGTERM");
    const { status, stdout } = await api.exited;
    expect(status).toBe(0);

    expect(statuses.filter((s) => s === 201)).toHaveLength(clients * each);
    const stored = await database.db.query<{ n: string }>(
      "SELECT count(*) AS n FROM namespaces WHERE name LIKE 'log-%'",
    );
    expect(Number(stored.rows[0]?.n)).toBe(clients * each);

    const lines = stdout
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { msg?: string; res?: { statusCode?: number } });
    const created = lines.filter((l) => l.msg === "request completed" && l.res?.statusCode === 201);
    expect(created).toHaveLength(clients * each);
    expect(lines.at(-1)?.msg).toBe("api stopped");
  }, 120_000);
});
