/**
 * Fastify's response serializers (fast-json-stringify, through its own compiler), compiled once
 * per schema object instead of once per route and status. Every route declares the same
 * `ErrorEnvelopeRef` object for each of its error statuses, so without this the API made 736
 * compiles at start where 79 schema objects exist — each compile cloning the shared schemas
 * and, for a schema with a union, building an Ajv instance of its own that the serializer keeps
 * (about a second of CPU at every start, profiled; 20–30 MB of resident memory for the
 * process's life: issue 39, P6). A serializer is a function of its schema and
 * of the instance's shared schemas, which is exactly what the cache is keyed by.
 */
import { SerializerSelector } from "@fastify/fast-json-stringify-compiler";
import type { FastifyServerOptions } from "fastify";

type SchemaController = NonNullable<FastifyServerOptions["schemaController"]>;
type BuildSerializer = NonNullable<
  NonNullable<SchemaController["compilersFactory"]>["buildSerializer"]
>;
type SerializerCompiler = ReturnType<BuildSerializer>;

const compilerOf = SerializerSelector();

/** fast-json-stringify's compiler for `externalSchemas`, sharing one serializer per schema object. */
export const buildSharedSerializer: BuildSerializer = (externalSchemas, options) => {
  const compile: SerializerCompiler = compilerOf(externalSchemas, options);
  const compiled = new WeakMap<object, ReturnType<SerializerCompiler>>();
  return (route) => {
    const schema: unknown = route.schema;
    if (typeof schema !== "object" || schema === null) return compile(route);
    const known = compiled.get(schema);
    if (known !== undefined) return known;
    const serializer = compile(route);
    compiled.set(schema, serializer);
    return serializer;
  };
};
