/**
 * Credential files re-read only when they change (src/drivers/kubernetes/client/credential-files.ts),
 * on real files: a rewrite (even of the same length), kubelet's symlink swap of a projected
 * volume, and a removed file are all seen at the next read.
 */
import { mkdir, mkdtemp, rename, rm, symlink, unlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CredentialFiles } from "../../../src/drivers/kubernetes/client/credential-files.js";

const LONG_AGO = new Date("2026-01-01T00:00:00Z");

/** Runs `body` in a directory of its own, removed afterwards. */
async function inFreshDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "occ-credential-files-"));
  try {
    await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Writes `text` to `path`, dated long ago (as a mounted file that has not changed for a while). */
async function settledFile(path: string, text: string): Promise<void> {
  await writeFile(path, text);
  await utimes(path, LONG_AGO, LONG_AGO);
}

describe("CredentialFiles", () => {
  it("keeps a settled file's text; reads a rewrite of the same length again; fails when it is gone", () =>
    inFreshDir(async (dir) => {
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
      await unlink(token);
      expect(() => files.read(token)).toThrow(/ENOENT/);
    }));

  it("follows kubelet's swap of the ..data symlink to a new directory", () =>
    inFreshDir(async (dir) => {
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
    }));
});
