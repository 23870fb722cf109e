import { pino, type Logger } from "pino";

/**
 * JSON logs (pino): to stdout, or to `file` (the dev environment keeps its console for people).
 *
 * Both destinations are asynchronous (sonic-boom with `sync: false`): a log line is appended to
 * a buffer and written when the previous write has finished, so lines logged while a write is
 * in flight go out together in one system call. A synchronous stdout write per request line was
 * the largest cost of `POST /namespaces` in the CPU profile (issue 20, P5). Nothing is lost
 * when the process ends: {@link flushLogger} drains the buffer at shutdown, and pino drains it
 * synchronously on `process.exit` too.
 */
export function createLogger(name: string, file?: string): Logger {
  const level = process.env.OCC_LOG_LEVEL ?? "info";
  const destination =
    file === undefined
      ? pino.destination({ dest: 1, sync: false })
      : pino.destination({ dest: file, mkdir: true, sync: false });
  return pino({ name, level }, destination);
}

/** Resolves once every line logged so far has been handed to the operating system. */
export function flushLogger(logger: Logger): Promise<void> {
  return new Promise((resolve, reject) => {
    logger.flush((err) => {
      if (err === undefined) resolve();
      else reject(err);
    });
  });
}
