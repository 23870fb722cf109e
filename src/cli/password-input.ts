/**
 * Reading a password for the CLI: from a file (`-` is standard input) or a prompt on the
 * terminal that does not echo. Never from an argument, where `ps` and shell history see it.
 */
import { readFile } from "node:fs/promises";
import { errnoCodeOf } from "../domain/input/unknowns.js";

/** Reads all of standard input. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) {
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The password in `file` (`-`: standard input), without its trailing newline. */
export async function passwordFromFile(file: string, flag: string): Promise<string> {
  let text: string;
  try {
    text = file === "-" ? await readStdin() : await readFile(file, "utf8");
  } catch (err) {
    throw new Error(`cannot read ${flag} ${file}: ${errnoCodeOf(err) ?? "error"}`);
  }
  const password = text.replace(/\r?\n$/, "");
  if (password === "") throw new Error(`${flag} ${file} is empty`);
  return password;
}

/** Prompts on the terminal with echo off; refuses when standard input is not a terminal. */
export async function promptPassword(prompt: string, flag: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    throw new Error(
      `standard input is not a terminal: pass ${flag} <file> (or ${flag} - to read it from standard input)`,
    );
  }
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding("utf8");
  try {
    return await new Promise<string>((resolve, reject) => {
      let typed = "";
      const onData = (chunk: string) => {
        for (const ch of chunk) {
          if (ch === "\r" || ch === "\n") {
            stdin.off("data", onData);
            resolve(typed);
            return;
          }
          if (ch === "\u0003") {
            stdin.off("data", onData);
            reject(new Error("cancelled"));
            return;
          }
          typed = ch === "\u007f" || ch === "\b" ? typed.slice(0, -1) : typed + ch;
        }
      };
      stdin.on("data", onData);
    });
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
    process.stderr.write("\n");
  }
}
