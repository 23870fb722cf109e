/** What the public process endpoints answer: `/healthz`, `/readyz`, `/metrics`, `/openapi.json`. */
import { Type } from "@sinclair/typebox";
import { Closed } from "./envelopes.js";

/** `/healthz` and `/readyz` (inside the data envelope). */
export const StatusSchema = Closed({ status: Type.String({ description: "`ok` or `ready`." }) });

/** `/metrics`: Prometheus text exposition format. */
export const MetricsTextSchema = Type.String();

/** `/openapi.json`. */
export const OpenApiDocumentSchema = Type.Object(
  { openapi: Type.String() },
  { additionalProperties: true, description: "The OpenAPI 3.1 document." },
);
