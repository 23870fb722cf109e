/** What the deployed tests' global setup hands to every test file (`inject("deployed")`). */
export interface DeployedEnvironment {
  /** The API server, on the node's address (reachable from the pods). */
  readonly server: string;
  /** The administrator's kubeconfig. */
  readonly kubeconfig: string;
  readonly nodeName: string;
  readonly nodeAddress: string;
  /** Superuser URL of the run's PostgreSQL, from the test process. */
  readonly databaseAdminUrl: string;
  /** The same server as pods reach it (the node's address). */
  readonly databaseUrlForPods: string;
  /** The image `npm run image` built, imported into the node's containerd (`occ:<version>`). */
  readonly image: string;
  readonly containerdSocket: string;
  readonly imageDir: string;
  readonly runDir: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    deployed: DeployedEnvironment;
  }
}
