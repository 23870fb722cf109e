import { execFile, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { chmod, mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { REPO_ROOT } from "./helm.js";

/**
 * The fenced blocks of the operator documentation, and which test runs each one.
 *
 * Every fenced block of the documents below (indented ones in lists too) declares a language. A command block (`sh`) is
 * preceded (blank lines aside) by a tag naming it and what runs it:
 *
 *     <!-- block external-prepare: run by test/integration/docs/external.test.ts -->
 *
 * A test runs the block through {@link documentedBlock}, which reads the commands from the
 * document at run time, so the test runs what the document says. A developer command that the
 * CI itself is (`npm test`, `npm run image`) is tagged `developer, run by <script>` instead.
 * `test/unit/docs/blocks.test.ts` checks both ways: every command block is tagged, every tag's
 * test exists and asks for that block by its ID, and every ID a test asks for is a block.
 */

/** The documents whose fenced commands are checked: docs/*.md, the chart README, README.md. */
export function documentedFiles(): string[] {
  const docs = readdirSync(join(REPO_ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`);
  return ["README.md", "deploy/helm/openclaw-enterprise/README.md", ...docs];
}

export interface DocBlock {
  /** The document, relative to the repository. */
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** The fence's language (`""` when none is given). */
  readonly lang: string;
  /** The tag's block ID, when the block is tagged. */
  readonly id?: string;
  /** `true` for a `developer, run by …` tag. */
  readonly developer: boolean;
  /** The files the tag names. */
  readonly runBy: readonly string[];
  /** The block's text, verbatim. */
  readonly text: string;
  /**
   * The commands, one per entry: comment lines dropped, `\` continuations joined, a trailing
   * ` # …` comment kept (the shell ignores it).
   */
  readonly commands: readonly string[];
}

const TAG = /^<!-- block ([a-z0-9-]+): (developer, )?run by (.+?) -->$/;

/** The commands of a block's text (see {@link DocBlock.commands}). */
export function commandsOf(text: string): string[] {
  const joined = text.replace(/\\\n\s*/g, "");
  return joined
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
}

/** Every fenced block of one document. */
export function docBlocks(file: string): DocBlock[] {
  const lines = readFileSync(join(REPO_ROOT, file), "utf8").split("\n");
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s*```(\S*)\s*$/.exec(lines[i] ?? "");
    if (open === null) continue;
    const end = lines.findIndex((l, j) => j > i && /^\s*```\s*$/.test(l));
    if (end < 0) throw new Error(`${file}:${i + 1}: a fence that never closes`);
    const text = lines.slice(i + 1, end).join("\n");
    let above = i - 1;
    while (above >= 0 && (lines[above] ?? "").trim() === "") above--;
    const tag = TAG.exec((lines[above] ?? "").trim());
    blocks.push({
      file,
      line: i + 1,
      lang: open[1] ?? "",
      ...(tag?.[1] !== undefined ? { id: tag[1] } : {}),
      developer: tag?.[2] !== undefined,
      runBy: tag?.[3]?.split(/,\s*/) ?? [],
      text,
      commands: commandsOf(text),
    });
    i = end;
  }
  return blocks;
}

/** Every fenced block of every documented file. */
export function allDocBlocks(): DocBlock[] {
  return documentedFiles().flatMap(docBlocks);
}

/** The block tagged `id`, read from the documents now. */
export function documentedBlock(id: string): DocBlock {
  const found = allDocBlocks().filter((b) => b.id === id);
  if (found.length !== 1) {
    throw new Error(`${found.length} documented blocks are tagged ${id}; expected exactly one`);
  }
  return found[0] as DocBlock;
}

export interface CommandResult {
  readonly command: string;
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  /** The working directory. */
  readonly cwd: string;
  /** The environment added to the test process's. */
  readonly env?: Readonly<Record<string, string>>;
  /** Placeholder → value, replaced in every command before it runs. */
  readonly fill?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
}

/** Fills the placeholders of one command. */
export function filled(command: string, fill: Readonly<Record<string, string>> = {}): string {
  let out = command;
  for (const [from, to] of Object.entries(fill)) out = out.replaceAll(from, to);
  return out;
}

/** Runs one command through `bash -o pipefail -c`. */
export function runCommand(command: string, opts: RunOptions): CommandResult {
  const res = spawnSync("bash", ["-o", "pipefail", "-c", command], {
    cwd: opts.cwd,
    encoding: "utf8",
    timeout: opts.timeoutMs ?? 120_000,
    env: { ...process.env, ...opts.env },
  });
  return { command, code: res.status, stdout: res.stdout, stderr: res.stderr };
}

/** Runs each command of a block in order, with its placeholders filled, and returns every result. */
export function runBlock(block: DocBlock, opts: RunOptions): CommandResult[] {
  return block.commands.map((c) => runCommand(filled(c, opts.fill), opts));
}

/**
 * {@link runBlock} without blocking the test process (its probes and watchers keep running
 * while a long command such as `helm upgrade --wait` does): the commands in order, each through
 * `bash -o pipefail -c`.
 */
export async function runBlockAsync(block: DocBlock, opts: RunOptions): Promise<CommandResult[]> {
  const results: CommandResult[] = [];
  for (const c of block.commands) {
    const command = filled(c, opts.fill);
    results.push(
      await new Promise<CommandResult>((resolve) => {
        execFile(
          "bash",
          ["-o", "pipefail", "-c", command],
          {
            cwd: opts.cwd,
            timeout: opts.timeoutMs ?? 120_000,
            maxBuffer: 64 * 1024 * 1024,
            env: { ...process.env, ...opts.env },
          },
          (err, stdout, stderr) => {
            const code = err === null ? 0 : typeof err.code === "number" ? err.code : null;
            resolve({ command, code, stdout, stderr });
          },
        );
      }),
    );
  }
  return results;
}

/** A message for a failed assertion on a command's result. */
export function shown(r: CommandResult): string {
  return `${r.command}\nexit ${String(r.code)}\n${r.stdout}\n${r.stderr}`;
}

/** The folders {@link operatorFolder} made, and the PATH that finds its tools first. */
export interface OperatorFolder {
  readonly bin: string;
  readonly work: string;
  readonly path: string;
}

/**
 * An operator's folder inside `dir` for running documented commands as written: `bin/` holds
 * `occ` (this checkout's CLI), `kubectl` and `helm` (the cluster binaries of .tools/bin), and
 * `work/` is the working directory, with the repository's `deploy/` linked in when
 * `linkDeploy` is set (the documents' `deploy/helm/…` paths).
 */
export async function operatorFolder(
  dir: string,
  opts: { readonly linkDeploy?: boolean } = {},
): Promise<OperatorFolder> {
  const bin = join(dir, "bin");
  const work = join(dir, "work");
  await mkdir(bin);
  await mkdir(work);
  const tool = async (name: string, target: string) => {
    await writeFile(join(bin, name), `#!/bin/sh\nexec ${target} "$@"\n`);
    await chmod(join(bin, name), 0o755);
  };
  await tool("occ", `${process.execPath} ${join(REPO_ROOT, "bin", "occ.js")}`);
  await tool("kubectl", join(REPO_ROOT, ".tools", "bin", "kubectl"));
  await tool("helm", join(REPO_ROOT, ".tools", "bin", "helm"));
  if (opts.linkDeploy === true) await symlink(join(REPO_ROOT, "deploy"), join(work, "deploy"));
  return { bin, work, path: `${bin}:${process.env.PATH ?? ""}` };
}
