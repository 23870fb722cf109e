import { createConnection, createServer, type AddressInfo, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { inject } from "vitest";
import pg from "pg";
import { openPostgres } from "../../../src/store/pg-db.js";
import { createTestDatabase } from "../../harness/db.js";

describe("the PostgreSQL adapter when the server ends its idle connections", () => {
  it("reports the error instead of crashing, and the next query reconnects", async () => {
    const t = await createTestDatabase();
    const seen: Error[] = [];
    const db = openPostgres(t.url, { max: 2, onIdleError: (err) => seen.push(err) });
    try {
      const before = await db.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      const pid = before.rows[0]?.pid;
      const admin = new pg.Client({ connectionString: inject("env").databaseUrl });
      await admin.connect();
      await admin.query("SELECT pg_terminate_backend($1)", [pid]);
      await admin.end();
      await new Promise((r) => setTimeout(r, 200));
      expect(seen.map((e) => (e as Error & { code?: string }).code)).toEqual(["57P01"]);
      const after = await db.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      expect(after.rows[0]?.pid).not.toBe(pid);
    } finally {
      await db.close();
      await t.drop();
    }
  });

  it("survives a connection that ends during its session check, and takes the next host", async () => {
    // A TCP proxy in front of the run's PostgreSQL that ends the client's connection (a FIN, as
    // a server stopped with `-m immediate`) as soon as it sees the session check's query.
    const t = await createTestDatabase();
    const real = new URL(t.url);
    let cut = 0;
    const open = new Set<Socket>();
    const proxy = createServer((client) => {
      const upstream = createConnection({ host: real.hostname, port: Number(real.port) });
      open.add(client).add(upstream);
      client.on("data", (chunk) => {
        if (chunk.toString("latin1").includes("pg_is_in_recovery")) {
          cut += 1;
          upstream.destroy();
          client.end();
          return;
        }
        upstream.write(chunk);
      });
      upstream.on("data", (chunk) => client.write(chunk));
      for (const s of [client, upstream]) s.on("error", () => undefined);
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    const { port } = proxy.address() as AddressInfo;
    const who = `${real.username}${real.password === "" ? "" : `:${real.password}`}@`;
    const url = `postgres://${who}127.0.0.1:${port},${real.hostname}:${real.port}${real.pathname}?target_session_attrs=read-write`;
    const db = openPostgres(url, { max: 2 });
    try {
      // Without a listener through the check, pg's 'error' event for the ended connection
      // would be unhandled and end this process (the worker's crash in R5).
      const res = await db.query<{ port: number }>("SELECT inet_server_port() AS port");
      expect(cut).toBe(1);
      expect(res.rows[0]?.port).toBe(Number(real.port));
    } finally {
      await db.close();
      for (const s of open) s.destroy();
      await new Promise((r) => proxy.close(r));
      await t.drop();
    }
  });
});
