import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../helm.js";

/** Where `npm run image` (tools/image.sh) leaves its output, unless OCC_IMAGE_DIR says otherwise. */
export const IMAGE_DIR = process.env.OCC_IMAGE_DIR ?? join(REPO_ROOT, ".image");
export const IMAGE_TAG = `occ:${(JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string }).version}`;

/** The `config` of an OCI image configuration (the fields a Dockerfile sets). */
export interface ImageConfig {
  readonly User?: string;
  readonly WorkingDir?: string;
  readonly Env?: readonly string[];
  readonly Entrypoint?: readonly string[];
  readonly Cmd?: readonly string[];
}

export interface OciImage {
  readonly manifestDigest: string;
  readonly config: ImageConfig;
  /** Paths of the layer blobs, base first. */
  readonly layers: readonly string[];
}

interface Descriptor {
  readonly digest: string;
  readonly annotations?: Readonly<Record<string, string>>;
}

function blobPath(layout: string, digest: string): string {
  const [alg, hex] = digest.split(":");
  return join(layout, "blobs", alg ?? "", hex ?? "");
}

/** Reads the image tagged `ref` from an OCI layout; fails saying how to build it when absent. */
export function readOciImage(layout: string, ref: string): OciImage {
  const indexFile = join(layout, "index.json");
  if (!existsSync(indexFile))
    throw new Error(`no OCI layout at ${layout}: build the image with \`npm run image\``);
  const index = JSON.parse(readFileSync(indexFile, "utf8")) as { manifests: Descriptor[] };
  const found = index.manifests.find(
    (m) => m.annotations?.["org.opencontainers.image.ref.name"] === ref,
  );
  if (found === undefined) throw new Error(`OCI layout ${layout} has no image tagged ${ref}`);
  const manifest = JSON.parse(readFileSync(blobPath(layout, found.digest), "utf8")) as {
    config: Descriptor;
    layers: Descriptor[];
  };
  const configBlob = JSON.parse(readFileSync(blobPath(layout, manifest.config.digest), "utf8")) as {
    config?: ImageConfig;
  };
  return {
    manifestDigest: found.digest,
    config: configBlob.config ?? {},
    layers: manifest.layers.map((l) => blobPath(layout, l.digest)),
  };
}

/** The regular files and symlinks of one gzip-compressed layer, without a leading `./` or `/`. */
export function layerFiles(layer: string): string[] {
  const listing = execFileSync("tar", ["-tvzf", layer], { maxBuffer: 256 * 1024 * 1024 });
  return listing
    .toString()
    .split("\n")
    .filter((line) => line.startsWith("-") || line.startsWith("l"))
    .map((line) => {
      const name = line.split(/\s+/).slice(5).join(" ");
      const path = line.startsWith("l") ? (name.split(" -> ")[0] ?? name) : name;
      return path.replace(/^\.?\//, "");
    });
}
