/**
 * Serving the API: builds the app and listens. Process concerns — configuration, signals,
 * the database's lifetime — belong to the caller (`occ api`, `occ dev up`), which calls
 * `close()` on shutdown; in-flight requests finish, new ones are answered 503.
 */
import { buildApp, type AppOptions, type OccApp } from "./app.js";

export interface ServerOptions extends AppOptions {
  /** Address to bind; default `127.0.0.1`. */
  readonly host?: string;
  /** Port to bind; 0 (the default) picks a free one. */
  readonly port?: number;
}

export interface RunningServer {
  readonly app: OccApp;
  /** `http://host:port` as bound. */
  readonly url: string;
  /** Stops accepting connections and waits for in-flight requests. */
  close(): Promise<void>;
}

/** Builds the app and listens on `host:port`. */
export async function startApiServer(options: ServerOptions): Promise<RunningServer> {
  const app = await buildApp(options);
  try {
    const url = await app.listen({ host: options.host ?? "127.0.0.1", port: options.port ?? 0 });
    return { app, url, close: () => app.close() };
  } catch (err) {
    await app.close();
    throw err;
  }
}
