import { pino, type Logger } from "pino";

/** JSON logs (pino): to stdout, or to `file` (the dev environment keeps its console for people). */
export function createLogger(name: string, file?: string): Logger {
  const level = process.env.OCC_LOG_LEVEL ?? "info";
  return file === undefined
    ? pino({ name, level })
    : pino({ name, level }, pino.destination({ dest: file, mkdir: true, sync: false }));
}
