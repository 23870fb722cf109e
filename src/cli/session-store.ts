/**
 * The CLI's stored sessions (issue 42): one per API server, in
 * `$XDG_CONFIG_HOME/occ/sessions.json` (or `~/.config/occ/sessions.json`), the directory mode
 * 0700 and the file 0600. A stored session is the signed session value the API set as its
 * cookie; the CLI sends it as a bearer credential, so a browser's CSRF rule does not apply.
 */
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { errnoCodeOf } from "../domain/input/unknowns.js";

const StoredSessionSchema = Type.Object({
  session: Type.String({ minLength: 1 }),
  user: Type.String(),
  expiresAt: Type.String(),
});
export type StoredSession = Static<typeof StoredSessionSchema>;

const StoreSchema = Type.Object({
  /** The server of the latest `occ login`: used when neither --server nor OCC_API_URL is set. */
  current: Type.Optional(Type.String()),
  sessions: Type.Record(Type.String(), StoredSessionSchema),
});
type Store = Static<typeof StoreSchema>;

/** The directory the CLI keeps its sessions in. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  return join(xdg !== undefined && xdg !== "" ? xdg : join(homedir(), ".config"), "occ");
}

/** The sessions file. */
export function sessionsFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), "sessions.json");
}

/** A server URL as the store's key: scheme, host and port, no trailing slash. */
export function serverKey(server: string): string {
  return server.replace(/\/+$/, "");
}

async function load(env: NodeJS.ProcessEnv): Promise<Store> {
  let text: string;
  try {
    text = await readFile(sessionsFile(env), "utf8");
  } catch (err) {
    if (errnoCodeOf(err) === "ENOENT") return { sessions: {} };
    throw err;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!Value.Check(StoreSchema, parsed)) {
    throw new Error(
      `${sessionsFile(env)} is not a sessions file of occ; remove it and sign in again`,
    );
  }
  return parsed;
}

async function save(store: Store, env: NodeJS.ProcessEnv): Promise<void> {
  const dir = configDir(env);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = sessionsFile(env);
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(store, null, 2)}\n`, { mode: 0o600 });
  await chmod(tmp, 0o600);
  await rename(tmp, file);
}

/** The stored session for `server`, if any. */
export async function storedSession(
  server: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<StoredSession | undefined> {
  return (await load(env)).sessions[serverKey(server)];
}

/** Stores (replaces) the session for `server`. */
export async function storeSession(
  server: string,
  session: StoredSession,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const store = await load(env);
  store.sessions[serverKey(server)] = session;
  await save({ ...store, current: serverKey(server) }, env);
}

/** Forgets the session for `server`; whether there was one. */
export async function forgetSession(
  server: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<boolean> {
  const store = await load(env);
  const key = serverKey(server);
  if (store.sessions[key] === undefined) return false;
  const rest = Object.fromEntries(Object.entries(store.sessions).filter(([k]) => k !== key));
  await save(store.current === key ? { sessions: rest } : { ...store, sessions: rest }, env);
  return true;
}

/** The server of the latest `occ login` that still has a stored session. */
export async function currentServer(
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  const store = await load(env);
  return store.current !== undefined && store.sessions[store.current] !== undefined
    ? store.current
    : undefined;
}
