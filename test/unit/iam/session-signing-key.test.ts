/**
 * The session signing key without `auth.sessionKeyFile` (the chart's `auth.secretName` empty):
 * every API process sharing the database signs with the one key stored there, so a session
 * issued by one replica is accepted by the others; a configured key file always wins.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateInstallationConfig } from "../../../src/config/installation-config.js";
import { loadAuthRuntime } from "../../../src/main/auth-runtime.js";
import type { Db } from "../../../src/store/db.js";
import { openMigratedPglite } from "../../harness/pglite.js";

const noKeyFile = validateInstallationConfig({}, "test.yaml");

describe("the session signing key", () => {
  let a: Db;
  let b: Db;
  let dir: string;
  beforeAll(async () => {
    [a, b] = await Promise.all([openMigratedPglite(), openMigratedPglite()]);
    dir = await mkdtemp(join(tmpdir(), "occ-session-key-"));
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close(), rm(dir, { recursive: true, force: true })]);
  });

  it("without a key file, is the database's key: equal for every process on that database", async () => {
    const first = await loadAuthRuntime(noKeyFile, {}, a);
    const second = await loadAuthRuntime(noKeyFile, {}, a);
    expect(first.keyFromDatabase).toBe(true);
    expect(first.runtime.sessionKey.length).toBeGreaterThanOrEqual(32);
    expect(second.runtime.sessionKey.equals(first.runtime.sessionKey)).toBe(true);
    const stored = await a.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM session_signing_key",
    );
    expect(stored.rows[0]?.n).toBe(1);
    // Another Installation (another database) gets a key of its own.
    const other = await loadAuthRuntime(noKeyFile, {}, b);
    expect(other.runtime.sessionKey.equals(first.runtime.sessionKey)).toBe(false);
  });

  it("with a key file, is the file's key, whatever the database holds", async () => {
    const file = join(dir, "session-key");
    const content = "k".repeat(48);
    await writeFile(file, content);
    const config = validateInstallationConfig({ auth: { sessionKeyFile: file } }, "test.yaml");
    const loaded = await loadAuthRuntime(config, {}, a);
    expect(loaded.keyFromDatabase).toBe(false);
    expect(loaded.runtime.sessionKey.toString("utf8")).toBe(content);
  });
});
