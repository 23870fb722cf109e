import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../harness/helm.js";
import {
  IMAGE_DIR,
  IMAGE_TAG,
  layerFiles,
  readOciImage,
  type OciImage,
} from "../harness/node/oci-image.js";

/**
 * The image `npm run image` builds without a container engine is the image the Dockerfile
 * describes: the same image configuration and exactly the same files under /app. The Dockerfile
 * cannot be built here (no engine), so its final stage is read as data and compared.
 */

interface FinalStage {
  readonly user: string;
  readonly workdir: string;
  readonly env: readonly string[];
  readonly entrypoint: readonly string[];
  readonly cmd: readonly string[];
  /** COPY destination under WORKDIR → its source (`context:<path>` or `<stage>:<path>`). */
  readonly copies: ReadonlyMap<string, string>;
  /** COPY destination outside WORKDIR (an absolute path) → its source, as for `copies`. */
  readonly systemCopies: ReadonlyMap<string, string>;
  /** The default of each `ARG` before the first FROM. */
  readonly args: ReadonlyMap<string, string>;
}

function finalStage(text: string): FinalStage {
  const lines = text
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
  const from = lines.map((l, i) => (l.startsWith("FROM ") ? i : -1)).filter((i) => i >= 0);
  const stage = lines.slice(from[from.length - 1]);
  const value = (word: string): string => {
    const line = stage.filter((l) => l.startsWith(`${word} `)).pop();
    if (line === undefined) throw new Error(`the Dockerfile's final stage has no ${word}`);
    return line.slice(word.length + 1).trim();
  };
  const args = new Map<string, string>();
  for (const l of lines.slice(0, from[0])) {
    const m = /^ARG (\w+)=(.*)$/.exec(l);
    if (m?.[1] !== undefined && m[2] !== undefined) args.set(m[1], m[2]);
  }
  const copies = new Map<string, string>();
  const systemCopies = new Map<string, string>();
  for (const l of stage.filter((s) => s.startsWith("COPY "))) {
    const parts = l.split(/\s+/).slice(1);
    const fromStage =
      parts[0]?.startsWith("--from=") === true ? parts.shift()?.slice(7) : undefined;
    const [src, dest] = parts;
    if (src === undefined || dest === undefined) throw new Error(`cannot read ${l}`);
    const source = `${fromStage ?? "context"}:${src}`;
    if (dest.startsWith("/")) systemCopies.set(dest, source);
    else copies.set(dest.replace(/^\.\//, ""), source);
  }
  return {
    user: value("USER"),
    workdir: value("WORKDIR"),
    env: stage.filter((l) => l.startsWith("ENV ")).map((l) => l.slice(4).trim()),
    entrypoint: JSON.parse(value("ENTRYPOINT")) as string[],
    cmd: JSON.parse(value("CMD")) as string[],
    copies,
    systemCopies,
    args,
  };
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

let image: OciImage;
let stage: FinalStage;
let appFiles: string[];

beforeAll(() => {
  image = readOciImage(join(IMAGE_DIR, "oci"), IMAGE_TAG.split(":")[1] ?? "");
  stage = finalStage(readFileSync(join(REPO_ROOT, "Dockerfile"), "utf8"));
  const appLayer = image.layers[image.layers.length - 1] ?? "";
  appFiles = layerFiles(appLayer)
    .filter((p) => p.startsWith("app/"))
    .map((p) => p.slice(4))
    .sort();
});

describe("npm run image builds what the Dockerfile describes", () => {
  it("has the Dockerfile's user, working directory, environment, entrypoint and command", () => {
    expect(image.config.User).toBe(stage.user);
    expect(image.config.User).toBe("10001:10001");
    expect(image.config.WorkingDir).toBe(stage.workdir);
    expect(image.config.Entrypoint).toEqual(stage.entrypoint);
    expect(image.config.Cmd).toEqual(stage.cmd);
    for (const env of stage.env) expect(image.config.Env).toContain(env);
  });

  it("holds under /app exactly the top-level entries the Dockerfile copies there", () => {
    expect(stage.workdir).toBe("/app");
    const top = new Set(appFiles.map((p) => p.split("/")[0]));
    const copied = new Set([...stage.copies.keys()].map((dest) => dest.split("/")[0]));
    expect([...top].sort()).toEqual([...copied].sort());
  });

  it("copies bin/, migrations/, proto/ and the chart from the repository file for file", () => {
    for (const [dest, src] of stage.copies) {
      if (!src.startsWith("context:")) continue;
      const from = join(REPO_ROOT, src.slice("context:".length));
      const expected = walk(from).map((f) => join(dest, relative(from, f)));
      expect(appFiles.filter((f) => f.startsWith(`${dest}/`))).toEqual(expected.sort());
    }
  });

  it("has one compiled module in dist/ per TypeScript module of src/, the console's build, and nothing else", () => {
    expect(stage.copies.get("dist")).toBe("build:/src/dist");
    const src = join(REPO_ROOT, "src");
    // Declarations only (the generated client's types, src/cli/generated/openapi.d.ts) compile
    // to nothing.
    const expected = walk(src)
      .filter((f) => !f.endsWith(".d.ts"))
      .map((f) => {
        const rel = relative(src, f);
        return join("dist", rel.endsWith(".ts") ? `${rel.slice(0, -3)}.js` : rel);
      });
    const built = appFiles.filter((f) => f.startsWith("dist/console/"));
    expect(appFiles.filter((f) => f.startsWith("dist/") && !f.startsWith("dist/console/"))).toEqual(
      expected.sort(),
    );
    // The console (npm run build:console): its page and hashed assets only.
    expect(built).toContain("dist/console/index.html");
    expect(
      built.filter(
        (f) =>
          f !== "dist/console/index.html" && !/^dist\/console\/assets\/[\w-]+\.(js|css)$/.test(f),
      ),
    ).toEqual([]);
  });

  it("has in node_modules exactly the production packages of package-lock.json", () => {
    expect(stage.copies.get("node_modules")).toBe("deps:/app/node_modules");
    const lock = JSON.parse(readFileSync(join(REPO_ROOT, "package-lock.json"), "utf8")) as {
      packages: Record<
        string,
        { dev?: boolean; optional?: boolean; os?: string[]; cpu?: string[]; libc?: string[] }
      >;
    };
    // npm installs a platform package (e.g. @node-rs/argon2's prebuilt binaries) only where its
    // os, cpu and libc match: the image is linux, x64 (tools/node.sh refuses other machines), glibc.
    const production = Object.entries(lock.packages)
      .filter(([path, p]) => path.startsWith("node_modules/") && p.dev !== true)
      .filter(([, p]) => p.os === undefined || p.os.includes(process.platform))
      .filter(([, p]) => p.cpu === undefined || p.cpu.includes("x64"))
      .filter(([, p]) => p.libc === undefined || p.libc.includes("glibc"))
      .map(([path]) => path)
      .sort();
    const installed = appFiles
      .map((f) => /^(.*)\/package\.json$/.exec(f)?.[1] ?? "")
      .filter((dir) => /(^|\/)node_modules\/(@[^/]+\/)?[^/.][^/]*$/.test(dir))
      .sort();
    expect(installed).toEqual(production);
  });

  it("derives the configuration from a values file without --chart (the chart ships in /app)", () => {
    // The image's /app, run from a folder with no deploy/ beside it: `occ preprovisioned
    // render --values` must find the chart's defaults inside the image.
    const dir = mkdtempSync(join(tmpdir(), "occ-image-app-"));
    try {
      const appLayer = image.layers[image.layers.length - 1] ?? "";
      execFileSync("tar", ["-xzf", appLayer, "-C", dir, "app"]);
      const work = join(dir, "work");
      execFileSync("mkdir", [work]);
      const values = join(work, "my-values.yaml");
      copyFileSync(
        join(REPO_ROOT, "deploy/helm/openclaw-enterprise/ci/preprovisioned-values.yaml"),
        values,
      );
      const rendered = execFileSync(
        process.execPath,
        [
          join(dir, "app/bin/occ.js"),
          "preprovisioned",
          "render",
          "--namespace-id",
          "ns_image",
        ].concat(["--values", values, "-n", "openclaw-system"]),
        { cwd: work, encoding: "utf8", env: { ...process.env, NODE_ENV: "production" } },
      );
      expect(rendered).toContain("openclaw.dev/namespace-lifecycle: preprovisioned");
      expect(rendered).toContain("namespace: openclaw-system");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("runs the pinned Node.js 24 from the registry package, as the Dockerfile does", () => {
    const pin = readFileSync(join(REPO_ROOT, "tools/node.sh"), "utf8");
    const version = /^OCC_NODE_VERSION=(\S+)$/m.exec(pin)?.[1] ?? "";
    const integrity = /^OCC_NODE_INTEGRITY=(\S+)$/m.exec(pin)?.[1] ?? "";
    expect(version).toMatch(/^24\.\d+\.\d+$/);
    expect(stage.args.get("NODE_VERSION")).toBe(version);
    expect(stage.args.get("NODE_INTEGRITY")).toBe(integrity);
    expect(stage.systemCopies.get("/usr/local/bin/node")).toBe("node:/node/package/bin/node");
    // `engines` allows the release the image runs.
    const engines = (
      JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
        engines: { node: string };
      }
    ).engines.node;
    const wantMajor = Number(/^>=(\d+)/.exec(engines)?.[1] ?? "99");
    expect(Number(version.split(".")[0])).toBeGreaterThanOrEqual(wantMajor);
    // The base layer holds that binary on PATH and not Debian's nodejs (Node.js 20).
    const base = image.layers[0] ?? "";
    const files = layerFiles(base);
    expect(files).toContain("usr/local/bin/node");
    expect(files).not.toContain("usr/bin/node");
    const dir = mkdtempSync(join(tmpdir(), "occ-image-node-"));
    try {
      execFileSync("tar", ["-xzf", base, "-C", dir, "--wildcards", "*usr/local/bin/node"]);
      const reported = execFileSync(join(dir, "usr/local/bin/node"), ["--version"], {
        encoding: "utf8",
      });
      expect(reported.trim()).toBe(`v${version}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
