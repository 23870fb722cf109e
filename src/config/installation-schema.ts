import { Type, type Static } from "@sinclair/typebox";
import { AuthSectionSchema } from "./auth-settings.js";

const StringMap = Type.Record(Type.String(), Type.String());
const Peer = Type.Object(
  { namespace: Type.String({ minLength: 1 }), podLabels: Type.Optional(StringMap) },
  { additionalProperties: false },
);
const Resources = Type.Object(
  // Quantities are validated (and a YAML number is explained) by the domain's Compute
  // settings validation, so they are left unknown here.
  { cpu: Type.Unknown(), memory: Type.Unknown() },
  { additionalProperties: false },
);

/** A Driver selection: the bundled implementation by name, or an installed module. */
const Manifest = Type.Record(Type.String(), Type.Unknown());

/** The Credential Proxy (egress authority): pods in one namespace, one TCP port (drivers.md §5). */
const EgressAuthority = Type.Object(
  {
    namespace: Type.String({ minLength: 1 }),
    podLabels: Type.Optional(StringMap),
    port: Type.Integer({ minimum: 1, maximum: 65535 }),
    /** The Service in front of the proxy pods; default `egress-authority`. */
    service: Type.Optional(
      Type.String({ minLength: 1, maxLength: 63, pattern: "^[a-z]([-a-z0-9]*[a-z0-9])?$" }),
    ),
  },
  { additionalProperties: false },
);

/** A token bucket of Kubernetes requests: `qps` sustained, `burst` at once. */
const RateLimitSchema = Type.Object(
  {
    qps: Type.Number({ exclusiveMinimum: 0, maximum: 100_000 }),
    burst: Type.Integer({ minimum: 1, maximum: 100_000 }),
  },
  { additionalProperties: false },
);

/** The OpenShell gateway (preprovisioned.md §4). */
const OpenShell = Type.Object(
  {
    /** `host:port` of the gateway's gRPC endpoint. */
    endpoint: Type.String({ minLength: 1 }),
    /** PEM file with the CA that signs the gateway's certificate; absent → plaintext. */
    tlsRootFile: Type.Optional(Type.String({ minLength: 1 })),
    /** File holding the bearer token sent with every call. */
    tokenFile: Type.Optional(Type.String({ minLength: 1 })),
    requestTimeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 120_000 })),
    gateway: Type.Optional(
      Type.Object(
        {
          workspaceMode: Type.Optional(Type.Literal("operator")),
          operatorNamespaceLabels: Type.Optional(StringMap),
          operatorWorkspaceResources: Type.Optional(Type.Array(Manifest)),
          networkPolicyResources: Type.Optional(Type.Array(Manifest)),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

/** What Agent workloads run (drivers.md §4). */
const Workloads = Type.Object(
  {
    gatewayImage: Type.Optional(Type.String({ minLength: 1 })),
    harnessImage: Type.Optional(Type.String({ minLength: 1 })),
    gatewayResources: Type.Optional(Resources),
    harnessResources: Type.Optional(Resources),
    /** PersistentVolumeClaims: sizes, access mode, storage class (absent → cluster default). */
    storage: Type.Optional(
      Type.Object(
        {
          gatewayStateSize: Type.Optional(Type.String({ minLength: 1 })),
          workspaceSize: Type.Optional(Type.String({ minLength: 1 })),
          storageClassName: Type.Optional(Type.String({ minLength: 1 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const DriverSelection = Type.Union([
  Type.Literal("kubernetes"),
  Type.Object({ module: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
]);

/** A RoleBinding subject: a User, or a ServiceAccount with its namespace. */
const RbacSubjectSchema = Type.Union([
  Type.Object(
    { kind: Type.Literal("User"), name: Type.String({ minLength: 1 }) },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      kind: Type.Literal("ServiceAccount"),
      name: Type.String({ minLength: 1 }),
      namespace: Type.String({ minLength: 1 }),
    },
    { additionalProperties: false },
  ),
]);

/**
 * The Installation configuration file (`OCC_CONFIG_PATH`, YAML), the single source of its type.
 * Every key is optional and defaults to the embedded development values; unknown keys are
 * refused so a typo never silently falls back to a default.
 */
export const InstallationConfigSchema = Type.Object(
  {
    drivers: Type.Optional(
      Type.Object(
        {
          compute: Type.Optional(DriverSelection),
          configuration: Type.Optional(DriverSelection),
          secret: Type.Optional(DriverSelection),
          sandbox: Type.Optional(Type.Union([Type.Literal("none"), Type.Literal("openshell")])),
        },
        { additionalProperties: false },
      ),
    ),
    kubernetes: Type.Optional(
      Type.Object(
        {
          kubeconfig: Type.Optional(Type.String({ minLength: 1 })),
          /** The API's own kubeconfig (the `occ-api` identity); default `kubeconfig`. */
          apiKubeconfig: Type.Optional(Type.String({ minLength: 1 })),
          controllerNamespace: Type.Optional(Type.String({ minLength: 1 })),
          requestTimeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 120_000 })),
          /**
           * Each process's budget of Kubernetes requests (a token bucket; watches excluded):
           * `qps` sustained, `burst` at once. Defaults: worker 100/200, API 100/200.
           */
          rateLimit: Type.Optional(
            Type.Object(
              { worker: Type.Optional(RateLimitSchema), api: Type.Optional(RateLimitSchema) },
              { additionalProperties: false },
            ),
          ),
          /**
           * The worker's and the API's identities. Set (the chart sets it with its admission
           * policies), the worker binds the tenant roles to them in each managed namespace it
           * creates; absent, the operator grants them (`occ namespaces grants`).
           */
          tenantRoleBindings: Type.Optional(
            Type.Object(
              { worker: RbacSubjectSchema, api: RbacSubjectSchema },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    resources: Type.Optional(
      Type.Object(
        {
          namespace: Type.Optional(
            Type.Object(
              {
                quota: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
                limits: Type.Optional(Resources),
                requests: Type.Optional(Resources),
              },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    network: Type.Optional(
      Type.Object(
        {
          dns: Type.Optional(Peer),
          gatewayPort: Type.Optional(Type.Unknown()),
          gatewayRouting: Type.Optional(
            Type.Union([
              Type.Null(),
              Type.Object(
                {
                  gatewayNamespace: Type.String({ minLength: 1 }),
                  gatewayName: Type.String({ minLength: 1 }),
                  envoyNamespace: Type.String({ minLength: 1 }),
                },
                { additionalProperties: false },
              ),
            ]),
          ),
          gatewayClients: Type.Optional(Type.Array(Peer)),
          egressAuthority: Type.Optional(Type.Union([Type.Null(), EgressAuthority])),
        },
        { additionalProperties: false },
      ),
    ),
    workloads: Type.Optional(Workloads),
    openshell: Type.Optional(Type.Union([Type.Null(), OpenShell])),
    /**
     * A separate execution cluster for workloads. This release does not support one; the key
     * exists so that a configuration asking for it is refused by name instead of ignored.
     */
    executionCluster: Type.Optional(
      Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false }),
    ),
    /** How people sign in (auth-settings.ts); absent: password sign-in for everyone. */
    auth: Type.Optional(AuthSectionSchema),
    worker: Type.Optional(
      Type.Object(
        {
          concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
          maxAttempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
          leaseSeconds: Type.Optional(Type.Integer({ minimum: 2, maximum: 600 })),
          convergenceDeadlineSeconds: Type.Optional(Type.Integer({ minimum: 10 })),
          pollSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600 })),
          resyncSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export type InstallationConfigFile = Static<typeof InstallationConfigSchema>;
