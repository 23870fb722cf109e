/**
 * The OCC HTTP API as a Fastify plugin, and {@link buildApp}, which wraps it in a configured
 * Fastify instance (the server — listening, signals — is `server.ts`). Tests build the same
 * app and drive it with `inject`.
 *
 * Request rules every route shares (control-plane.md §2): JSON bodies only (415 otherwise),
 * at most 64 KiB (413), no unknown fields or query parameters (400, by the route schemas and
 * `validation.ts`), no body on routes that take none (400), every response carries
 * `x-request-id` and is enveloped, every error comes from the code table.
 */
import type { NamespaceId } from "../domain/placement/ids.js";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyPluginAsync,
  type RawServerDefault,
} from "fastify";
import { buildSharedSerializer } from "./serializers.js";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { IncomingMessage, ServerResponse } from "node:http";
import { Registry } from "prom-client";
import {
  agentQueueConfig,
  guardDatabase,
  namespaceQueueConfig,
  type AgentWorkKind,
  type Db,
  type NamespaceWorkKind,
  type PolicyCache,
  type QueueConfig,
  type RequiredSchema,
} from "../services/handles.js";
import { agentRoutes } from "./agents/routes.js";
import { auditRoutes } from "./audit-routes.js";
import { authRoutes } from "./auth/routes.js";
import { sessionAdminRoutes } from "./auth/admin-routes.js";
import { registerSessionCookies } from "./auth/session-auth.js";
import { oidcRoutes } from "./auth/oidc-routes.js";
import type { ExternalProviders } from "../services/signin/external-providers.js";
import { developmentAuthRuntime, type AuthRuntime } from "../services/signin/runtime.js";
import { workerRoutes } from "./workers-routes.js";
import { configurationRoutes } from "./configurations/routes.js";
import { secretRoutes } from "./secrets/routes.js";
import { serviceAccountRoutes } from "./service-accounts/routes.js";
import {
  BUNDLED_KUBERNETES_COMPUTE,
  type ComputeSelection,
} from "../services/compute-selection.js";
import { frameworkErrorHandler, registerErrorHandler } from "./error-handler.js";
import { ServiceError } from "../services/errors.js";
import { healthRoutes, registerHttpMetrics } from "./health.js";
import { apiKeyRoutes } from "./iam/api-keys-routes.js";
import { bindingRoutes } from "./iam/bindings-routes.js";
import { principalRoutes } from "./iam/principals-routes.js";
import { identityRoutes } from "./iam/identities-routes.js";
import { restrictionRoutes } from "./iam/restrictions-routes.js";
import { roleRoutes } from "./iam/roles-routes.js";
import {
  DEFAULT_NAMESPACE_CONTENT_CHECKS,
  type NamespaceContentCheck,
} from "../services/namespaces/contents.js";
import { namespaceRoutes } from "./namespaces/routes.js";
import { orphanRoutes } from "./namespaces/orphan-routes.js";
import { inspectionRoutes } from "./namespaces/inspection-routes.js";
import type { InspectionDeps } from "../services/namespaces/inspection.js";
import type { OrphanServiceDeps } from "../services/namespaces/orphans.js";
import { openApiRoutes, registerOpenApi } from "./openapi.js";
import { registerConsole } from "./console.js";
import { registerNotFound } from "./not-found.js";
import {
  newRequestId,
  registerAuthentication,
  registerRequestContext,
  OneLineRequestLog,
  requestLogView,
} from "./request-context.js";
import {
  clientErrorHandler,
  DEFAULT_REQUEST_TIMEOUT_MS,
  registerClosingGuard,
  registerHttpRefusals,
  timeoutCheckIntervalMs,
} from "./client-errors.js";
import { NoQuerySchema } from "../contract/envelopes.js";
import { bodyRefusals, SHARED_SCHEMAS } from "./schemas.js";
import { validatorCompiler } from "./validation.js";
import { registerJsonBodyParser } from "./json-body.js";
import type { TenantDrivers } from "../services/tenant/access.js";

/** The largest request body accepted: 64 KiB. */
export const MAX_BODY_BYTES = 64 * 1024;

export interface AppOptions {
  /** The database (wrapped here so an unavailable database answers 503, never 500). */
  readonly db: Db;
  /** The Installation's Compute selection; default the bundled Kubernetes driver. */
  readonly compute?: ComputeSelection;
  /** The namespace OCC runs in, refused as `existingNamespace` (placement.md §8). */
  readonly controllerNamespace: string;
  /**
   * The preprovisioned profile's bound Namespace ID (`OCC_PREPROVISIONED_NAMESPACE`), or
   * undefined in the normal profile. That Namespace is presented with placement mode
   * `preprovisioned`: its stored mode is the managed default it was created with.
   */
  readonly preprovisionedNamespaceId?: NamespaceId | undefined;
  /** Namespace work queue configuration; default the spec's policy and the database clock. */
  readonly queue?: QueueConfig<NamespaceWorkKind>;
  /** Agent work queue configuration (revision deploys, teardowns); default the spec's policy. */
  readonly agentQueue?: QueueConfig<AgentWorkKind>;
  /** What keeps a Namespace from being deleted; default the resource kinds that exist. */
  readonly contentChecks?: readonly NamespaceContentCheck[];
  /**
   * The Configuration and Secret Drivers (built by the driver factory on the API's own
   * `occ-api` identity); without them their routes answer 503.
   */
  readonly drivers?: TenantDrivers;
  /** Lists the tenant-labelled namespaces for the orphan report; without it that answers 503. */
  readonly markedNamespaces?: OrphanServiceDeps["markedNamespaces"];
  /** The console's read-only Kubernetes reader (preflight, Events, policies); else 503. */
  readonly inspector?: InspectionDeps["inspector"];
  /** A pino logger; default no logging. Requests are logged without their query string. */
  readonly logger?: FastifyBaseLogger;
  /** How long a whole request may take to arrive before 408; default 30 s. */
  readonly requestTimeoutMs?: number;
  /** Where HTTP metrics go and what `/metrics` serves; default a fresh registry. */
  readonly registry?: Registry;
  /** The migrations this release needs, checked by `/readyz`; default not checked. */
  readonly schema?: RequiredSchema;
  /**
   * The process's policy cache over `db` (started and closed by the caller); without one every
   * request reads its key and grants from the database.
   */
  readonly policyCache?: PolicyCache;
  /** Sign-in settings, session key and tunables; default development (a random key). */
  readonly auth?: AuthRuntime;
  /** The external sign-in providers (`auth.oidc`, `auth.google`); default none. */
  readonly externalProviders?: ExternalProviders;
}

/** The Fastify instance type of the app. */
export type OccApp = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/**
 * The API plugin. Not encapsulated (`skip-override`): its error handler, not-found handler and
 * hooks apply to the instance it is registered in, and so to every route.
 */
export const occApi: FastifyPluginAsync<AppOptions> = Object.assign(
  async (app: FastifyInstance, options: AppOptions): Promise<void> => {
    const db = guardDatabase(options.db);
    const registry = options.registry ?? new Registry();
    registerClosingGuard(app);
    registerHttpRefusals(app);
    app.setValidatorCompiler(validatorCompiler);
    app.removeContentTypeParser("text/plain");
    registerJsonBodyParser(app);
    registerRequestContext(app);
    registerErrorHandler(app);
    registerNotFound(app);
    // A route that declares no query parameters takes none: `?anything` is refused (400). A
    // route that may be sent a body declares its refusals (413, 415).
    app.addHook("onRoute", (route) => {
      const response = route.schema?.response;
      route.schema = {
        ...route.schema,
        querystring: route.schema?.querystring ?? NoQuerySchema,
        ...(typeof response === "object" && response !== null
          ? { response: { ...bodyRefusals(route.method), ...response } }
          : {}),
      };
    });
    registerHttpMetrics(app, registry);
    options.policyCache?.accept(db);
    const auth = options.auth ?? developmentAuthRuntime();
    // Security headers before authentication, so refusals carry them too.
    await registerConsole(app);
    await registerSessionCookies(app, auth);
    registerAuthentication(app, db, options.policyCache, auth.settings);
    app.addHook("preValidation", (request, _reply, done) => {
      if (request.body !== undefined && request.routeOptions.schema?.body === undefined) {
        done(new ServiceError("INVALID_REQUEST", "This route takes no request body."));
        return;
      }
      done();
    });
    await registerOpenApi(app);
    for (const schema of SHARED_SCHEMAS) app.addSchema(schema);

    const deps = {
      db,
      queue: options.queue ?? namespaceQueueConfig(),
      compute: options.compute ?? BUNDLED_KUBERNETES_COMPUTE,
      controllerNamespace: options.controllerNamespace,
      contentChecks: options.contentChecks ?? DEFAULT_NAMESPACE_CONTENT_CHECKS,
      preprovisionedNamespaceId: options.preprovisionedNamespaceId,
    };
    await app.register(healthRoutes, { db, registry, schema: options.schema });
    await app.register(openApiRoutes);
    await app.register(namespaceRoutes, deps);
    await app.register(orphanRoutes, { ...deps, markedNamespaces: options.markedNamespaces });
    await app.register(inspectionRoutes, { ...deps, inspector: options.inspector });
    for (const iam of [
      principalRoutes,
      apiKeyRoutes,
      roleRoutes,
      bindingRoutes,
      restrictionRoutes,
      identityRoutes,
    ]) {
      await app.register(iam, { db });
    }
    await app.register(authRoutes, { db, auth });
    await app.register(sessionAdminRoutes, { db });
    const providers = options.externalProviders;
    if (providers !== undefined && providers.list().length > 0) {
      await app.register(oidcRoutes, { db, auth, providers });
    }
    await app.register(auditRoutes, { db });
    await app.register(workerRoutes, { db });
    const tenant = { db, drivers: options.drivers, log: app.log };
    await app.register(configurationRoutes, tenant);
    await app.register(secretRoutes, tenant);
    await app.register(serviceAccountRoutes, tenant);
    await app.register(agentRoutes, {
      ...tenant,
      agentQueue: options.agentQueue ?? agentQueueConfig(),
      compute: deps.compute,
    });
  },
  { [Symbol.for("skip-override")]: true },
);

/** A ready app: configured instance, the API plugin registered, routes and schemas compiled. */
export async function buildApp(options: AppOptions): Promise<OccApp> {
  const timeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const app = Fastify({
    bodyLimit: MAX_BODY_BYTES,
    genReqId: newRequestId,
    requestIdHeader: false,
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    return503OnClosing: false,
    // One serializer per response schema object, not per route and status (serializers.ts).
    schemaController: { compilersFactory: { buildSerializer: buildSharedSerializer } },
    requestTimeout: timeout,
    // Node applies the request timeout to bodies only when given at construction; it checks
    // for expired requests on an interval (see timeoutCheckIntervalMs). A request without Host
    // is refused by registerHttpRefusals, in the envelope, instead of by node.
    http: {
      requestTimeout: timeout,
      headersTimeout: timeout,
      connectionsCheckingInterval: timeoutCheckIntervalMs(timeout),
      requireHostHeader: false,
    },
    logController: new OneLineRequestLog(),
    ...(options.logger === undefined
      ? { logger: false }
      : {
          loggerInstance: options.logger.child(
            {},
            {
              serializers: {
                req: requestLogView,
                res: (r: { statusCode: number }) => ({ statusCode: r.statusCode }),
              },
            },
          ),
        }),
  }).withTypeProvider<TypeBoxTypeProvider>();
  await app.register(occApi, options);
  await app.ready();
  return app;
}
