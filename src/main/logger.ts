import { pino, type DestinationStream, type Logger } from "pino";
import { errnoCodeOf } from "../domain/input/unknowns.js";

/** Lines wait in the buffer until it holds this many bytes, or {@link FLUSH_EVERY_MS} passes. */
const BUFFER_BYTES = 4096;

/** The longest a logged line waits before it is written. */
const FLUSH_EVERY_MS = 100;

/**
 * JSON logs (pino): to stdout, or to `file` (the dev environment keeps its console for people).
 *
 * Both destinations are asynchronous and buffered (sonic-boom with `sync: false` and a
 * `minLength`), as klog buffers Kubernetes components' logs: lines are appended to a buffer that
 * is written once it holds {@link BUFFER_BYTES} bytes, and at most {@link FLUSH_EVERY_MS} after a
 * line was logged. A synchronous stdout write per request line was the largest cost of
 * `POST /namespaces` in the CPU profile (issue 20, P5); an asynchronous write per line still
 * handed every line of a busy worker to a thread of its own (issue 20, P1). Nothing is lost when
 * the process ends: {@link flushLogger} drains the buffer at shutdown, and pino drains it
 * synchronously on `process.exit` too. A process killed outright (SIGKILL) loses at most the
 * last {@link FLUSH_EVERY_MS} of lines.
 */
export function createLogger(name: string, file?: string): Logger {
  const level = process.env.OCC_LOG_LEVEL ?? "info";
  const destination =
    file === undefined
      ? pino.destination({ dest: 1, sync: false, minLength: BUFFER_BYTES })
      : pino.destination({ dest: file, mkdir: true, sync: false, minLength: BUFFER_BYTES });
  let pending = false;
  const timer = setInterval(() => {
    if (!pending) return;
    pending = false;
    try {
      destination.flush();
    } catch {
      // Destroyed at shutdown, after its last lines were drained (flushLogger, or on exit).
    }
  }, FLUSH_EVERY_MS);
  timer.unref();
  const logger = pino(
    {
      name,
      level,
      hooks: {
        streamWrite(line) {
          pending = true;
          return line;
        },
      },
    },
    destination,
  );
  destinations.set(logger, destination);
  return logger;
}

/** Each logger's buffered destination, for {@link flushLogger}. */
const destinations = new WeakMap<Logger, DestinationStream & { flushSync(): void }>();

/** fsync is refused on pipes, sockets, terminals and /dev/null; the lines were written all the same. */
function fsyncUnsupported(err: Error): boolean {
  const code = errnoCodeOf(err);
  return code === "EINVAL" || code === "ENOTSUP";
}

/**
 * Resolves once every line logged so far has been handed to the operating system: the write
 * in flight finishes, then what is left in the buffer (less than its threshold) is written.
 * sonic-boom reports success as `undefined` (a pipe, a terminal) or as fsync's `null` (a regular
 * file: `nohup occ api > occ.log`, systemd's `StandardOutput=file:`); both are success.
 */
export async function flushLogger(logger: Logger): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    logger.flush((err: Error | null | undefined) => {
      if (err === undefined || err === null || fsyncUnsupported(err)) resolve();
      else reject(err);
    });
  });
  destinations.get(logger)?.flushSync();
}

/** {@link flushLogger} for a process about to exit at once: what is buffered, written now. */
export function flushLoggerSync(logger: Logger): void {
  try {
    destinations.get(logger)?.flushSync();
  } catch {
    // A write still in flight (sonic-boom refuses then): the exit writes nothing more anyway.
  }
}
