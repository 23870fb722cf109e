/**
 * Credential files re-read only when they change (src/drivers/kubernetes/client/credential-files.ts),
 * on real files: a rewrite (even of the same length), kubelet's symlink swap of a projected
 * volume, and a removed file are all seen at the next read.
 */
import { mkdir, mkdtemp, rename, rm, symlink, unlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CredentialFiles } from "../../../src/drivers/kubernetes/client/credential-files.js";

let dir: string;
const LONG_AGO = new Date("2026-01-01T00:00:00Z");

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "occ-credential-files-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes `text` to `path`, dated long ago (as a mounted file that has not changed for a while). */
async function settledFile(path: string, text: string): Promise<void> {
  await writeFile(path, text);
  await utimes(path, LONG_AGO, LONG_AGO);
}

describe("CredentialFiles", () => {
  it("keeps a settled file's text, and reads a rewrite of the same length again", async () => {
    const token = join(dir, "token");
    const files = new CredentialFiles();
    await settledFile(token, "token-a");
    expect(files.read(token)).toBe("token-a");
    expect(files.read(token)).toBe("token-a");
    await writeFile(token, "token-b");
    expect(files.read(token)).toBe("token-b");
    // Modified just now: not kept, so a second rewrite within the same clock tick is seen too.
    await writeFile(token, "token-c");
    expect(files.read(token)).toBe("token-c");
  });

  it("follows kubelet's swap of the ..data symlink to a new directory", async () => {
    // A projected volume: token → ..data/token, ..data → ..2026_12_06_a (then ..2026_12_06_b).
    for (const [version, text] of [
      ["..2026_12_06_a", "first"],
      ["..2026_12_06_b", "second"],
    ] as const) {
      await mkdir(join(dir, version));
      await settledFile(join(dir, version, "token"), text);
    }
    await symlink("..2026_12_06_a", join(dir, "..data"));
    await symlink(join("..data", "token"), join(dir, "token"));
    const files = new CredentialFiles();
    expect(files.read(join(dir, "token"))).toBe("first");
    // The swap is atomic: a new symlink renamed over the old one. Both files are equally old.
    await symlink("..2026_12_06_b", join(dir, "..data_tmp"));
    await rename(join(dir, "..data_tmp"), join(dir, "..data"));
    expect(files.read(join(dir, "token"))).toBe("second");
  });

  it("fails as a read does when the file is gone", async () => {
    const ca = join(dir, "ca.crt");
    const files = new CredentialFiles();
    await settledFile(ca, "pem");
    expect(files.read(ca)).toBe("pem");
    await unlink(ca);
    expect(() => files.read(ca)).toThrow(/ENOENT/);
  });
});
