import type { ClusterIdentity } from "../../src/devcluster/identities.js";

/** What the global setup hands to every integration test file. */
export interface TestEnvironment {
  readonly server: string;
  readonly caPem: string;
  readonly kubeconfigs: Readonly<Record<ClusterIdentity, string>>;
  readonly tokens: Readonly<Record<ClusterIdentity, string>>;
  /** The API server's serving certificate and key (valid for 127.0.0.1), for test proxies. */
  readonly servingCertFile: string;
  readonly servingKeyFile: string;
  /** Superuser connection to the `postgres` database of the run's server. */
  readonly databaseUrl: string;
  readonly runDir: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    env: TestEnvironment;
  }
}
