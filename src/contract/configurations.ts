/**
 * The Configuration resource as the API shows it (drivers.md §1) and the bodies and
 * parameters of its routes. `values` is the document stored in the ConfigMap; `generation`
 * starts at 1 and grows by one with every update.
 */
import { Type, type Static } from "@sinclair/typebox";
import { DOCUMENT_LIMITS } from "../domain/input/json-documents.js";
import { tenantResourceIdPattern } from "../domain/tenant/resources.js";
import { CONFIGURATION_KINDS } from "../domain/tenant/vocabulary.js";
import { NamespaceIdSchema } from "./namespaces.js";
import { Closed, DateTime, IdString, literalUnion } from "./envelopes.js";

export const ConfigurationIdSchema = IdString(
  tenantResourceIdPattern("configuration").source,
  "A Configuration ID (`cfg_…`).",
);

const Values = Type.Record(Type.String(), Type.Unknown(), {
  description:
    "The OpenClaw configuration document (a JSON object). Limits (400 naming the one exceeded): " +
    `at most ${DOCUMENT_LIMITS.depth} levels of nesting, ${DOCUMENT_LIMITS.keys} keys over all ` +
    `levels, ${DOCUMENT_LIMITS.bytes} bytes as compact JSON. Numbers must round-trip exactly ` +
    "through a 64-bit double (no 1e400, no -0, no integers beyond 2^53 precision — send those " +
    "as strings); strings and keys may not hold NUL or unpaired surrogates. Stored and returned " +
    "exactly as sent, never altered.",
});

export const CreateConfigurationBodySchema = Closed(
  { kind: literalUnion(CONFIGURATION_KINDS), values: Values },
  { examples: [{ kind: "agent", values: { model: "default", temperature: 0.2 } }] },
);
export type CreateConfigurationBody = Static<typeof CreateConfigurationBodySchema>;

export const UpdateConfigurationBodySchema = Closed(
  { values: Values },
  { examples: [{ values: { model: "default", temperature: 0.5 } }] },
);
export type UpdateConfigurationBody = Static<typeof UpdateConfigurationBodySchema>;

export const ConfigurationParamsSchema = Closed({
  id: NamespaceIdSchema,
  configurationId: ConfigurationIdSchema,
});

export const ConfigurationSchema = Closed({
  id: ConfigurationIdSchema,
  namespaceId: NamespaceIdSchema,
  kind: literalUnion(CONFIGURATION_KINDS),
  generation: Type.Integer({ minimum: 1 }),
  values: Values,
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type ConfigurationView = Static<typeof ConfigurationSchema>;
