import type { Command } from "commander";

/**
 * Parses and runs the CLI. Every failure prints one line `occ: <reason>` and exits non-zero;
 * a stack trace is shown only with OCC_DEBUG=1.
 */
export async function runCli(program: Command, argv: readonly string[]): Promise<void> {
  program.exitOverride();
  try {
    await program.parseAsync([...argv]);
  } catch (err) {
    if (isCommanderExit(err)) {
      process.exitCode = err.exitCode;
      return;
    }
    const message = err instanceof Error ? err.message : String(err);
    console.error(`occ: ${message}`);
    if (process.env.OCC_DEBUG === "1" && err instanceof Error) console.error(err.stack);
    process.exitCode = 1;
  }
}

function isCommanderExit(err: unknown): err is { exitCode: number } {
  return (
    typeof err === "object" &&
    err !== null &&
    "code" in err &&
    typeof err.code === "string" &&
    err.code.startsWith("commander.") &&
    "exitCode" in err &&
    typeof err.exitCode === "number"
  );
}
