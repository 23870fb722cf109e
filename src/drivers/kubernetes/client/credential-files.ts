/**
 * Credential files named by a kubeconfig (the in-cluster service account's `ca.crt` and
 * `token`, or any `certificate-authority`, `client-certificate`, `client-key` or `tokenFile`
 * path), read again only when they change. Every request needs them, and a rotated token or
 * certificate must be used from the next request on: kubelet refreshes a projected service
 * account token well before it expires, by swapping the volume's `..data` symlink to a new
 * directory. One `stat` (following symlinks) tells whether the file is another file, or was
 * rewritten, since it was read: a new device or inode, modification or change time
 * (nanoseconds) or size reads it again; otherwise the text read last time is returned — one
 * system call a file per request instead of an open, a read and a close. A file modified less
 * than {@link SETTLE_MS} before it was read is not kept (as git treats a "racily clean" entry):
 * the kernel stamps times at the granularity of its clock tick, so a rewrite of the same size in
 * the same tick would otherwise look unchanged.
 */
import { readFileSync, statSync, type BigIntStats } from "node:fs";

/** How old a file's modification must be for its text to be kept. */
export const SETTLE_MS = 2_000;

interface Read {
  /** What `stat` said before the file was read. */
  readonly stat: BigIntStats;
  readonly text: string;
}

/** The same file, unchanged: the fields a replacement or a rewrite changes. */
const same = (a: BigIntStats, b: BigIntStats): boolean =>
  a.dev === b.dev &&
  a.ino === b.ino &&
  a.mtimeNs === b.mtimeNs &&
  a.ctimeNs === b.ctimeNs &&
  a.size === b.size;

/** The text of each file this cache was asked for, re-read when the file changed. */
export class CredentialFiles {
  private readonly reads = new Map<string, Read>();

  /** The file's text (UTF-8), as it is on disk now. Throws as `readFileSync` does. */
  read(path: string): string {
    const stat = statSync(path, { bigint: true });
    const known = this.reads.get(path);
    if (known !== undefined && same(known.stat, stat)) return known.text;
    const text = readFileSync(path, "utf8");
    const settled = Date.now() - Number(stat.mtimeMs) >= SETTLE_MS;
    if (!settled) {
      this.reads.delete(path);
      return text;
    }
    // The identity seen before the read: a write racing with it changes it, and is read next time.
    this.reads.set(path, { stat, text });
    return text;
  }
}
