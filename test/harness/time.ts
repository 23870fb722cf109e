/** Waiting in tests: one `sleep` for every suite (a real timer, never a fake clock). */
import { setTimeout as delay } from "node:timers/promises";

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => delay(ms);
