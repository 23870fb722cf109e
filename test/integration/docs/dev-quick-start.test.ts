import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { currentManagedName } from "../../../src/domain/index.js";
import { documentedBlock, runCommand, shown } from "../../harness/doc-blocks.js";
import { REPO_ROOT } from "../../harness/helm.js";
import { eventually } from "../../harness/kube.js";

/**
 * README.md's quick start as an operator runs it: `npm run dev` (the block's `npm ci` is not run
 * here — it would replace the node_modules this test runs from; the CI runs it first), then the
 * documented script against `.occ/dev/dev.env`. The only additions: `--state-dir` and `--port 0`
 * (passed through npm to `occ dev up`), so that the run neither uses the checkout's `.occ/dev`
 * nor a fixed port; the scripts block runs in the folder that holds that `.occ/dev`.
 */

let dir: string | undefined;
let dev: ChildProcess | undefined;

/** True while any process of the group `pgid` is alive (signal 0 checks without sending). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

afterAll(async () => {
  // The whole group, not only the `bash -c` that leads it: bash exits at once on SIGTERM, while
  // `occ dev up` below it is still shutting down and writing its PGlite files; removing the
  // folder under it failed with ENOTEMPTY.
  const pgid = dev?.pid;
  if (pgid !== undefined) {
    try {
      process.kill(-pgid, "SIGTERM");
    } catch {
      // Already gone.
    }
    await eventually(
      "npm run dev and everything it started exited",
      () => Promise.resolve(!groupAlive(pgid)),
      90_000,
    );
  }
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
}, 120_000);

describe("README.md: quick start", () => {
  it("npm run dev, then the dev.env scripts create a Namespace", { timeout: 300_000 }, async () => {
    dir = await mkdtemp(join(tmpdir(), "occ-quick-start-"));
    await mkdir(join(dir, ".occ"));
    await symlink(join(REPO_ROOT, ".tools"), join(dir, ".tools"));

    const [install, run, ...rest] = (documentedBlock("quick-start-dev").commands[0] ?? "")
      .replace(/\s+#.*$/, "")
      .split(" && ");
    expect(install).toBe("npm ci");
    expect(run).toBe("npm run dev");
    expect(rest).toEqual([]);
    const stateDir = join(dir, ".occ", "dev");
    const started = spawn("bash", ["-c", `${run ?? ""} -- --state-dir ${stateDir} --port 0`], {
      cwd: REPO_ROOT,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, OCC_CONFIG_PATH: "" },
    });
    dev = started;
    let output = "";
    started.stdout.on("data", (d: Buffer) => (output += d.toString()));
    started.stderr.on("data", (d: Buffer) => (output += d.toString()));
    await eventually(
      "npm run dev prints that OCC is up",
      () => {
        if (started.exitCode !== null) throw new Error(`npm run dev exited:\n${output}`);
        return Promise.resolve(/OCC is up: http:\/\/\S+/.test(output));
      },
      240_000,
    );

    const block = documentedBlock("dev-env-scripts");
    // One shell: the first line exports dev.env for the lines after it.
    const script = runCommand(block.commands.join("\n"), { cwd: dir });
    expect(script.code, shown(script)).toBe(0);
    const created = /"id":"(ns_[^"]+)"/.exec(script.stdout)?.[1] ?? "";
    expect(created, script.stdout).not.toBe("");
    expect(script.stdout).toContain('"name":"support"');
    const kubectlLine = block.commands[block.commands.length - 1] ?? "";
    expect(kubectlLine).toMatch(/^\.tools\/bin\/kubectl get namespaces/);
    await eventually(
      "the new Namespace's Kubernetes namespace is listed",
      () => {
        const listed = runCommand(`set -a; . .occ/dev/dev.env; set +a\n${kubectlLine}`, {
          cwd: dir ?? "",
        });
        return Promise.resolve(listed.stdout.includes(currentManagedName(created)));
      },
      120_000,
    );
  });
});
