/**
 * Writes the API's OpenAPI document, as `/openapi.json` serves it, to the path given — without
 * a server: the same document the CLI's client is generated from (tools/openapi-client.ts
 * `openApiDocument`) — with one change for the Go generator, {@link collapseLiteralUnions}.
 *
 * oapi-codegen (v2.8) reads this OpenAPI 3.1 document as it is (its `anyOf [T, null]` become
 * pointers), but TypeBox writes a union of string literals as `anyOf` of one-value enums, which
 * it turns into an opaque union type per field (`…Status0`…`…Status4` and a `json.RawMessage`).
 * The same vocabulary as one `{type: string, enum: [...]}` is what 3.0 and 3.1 both mean by
 * it, and becomes a plain string type. Nothing else is changed.
 */
import { writeFile } from "node:fs/promises";
import { openApiDocument } from "./openapi-client.js";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** `{anyOf: [{type: string, enum: [a]}, {type: string, enum: [b]}…]}` → one string enum. */
function collapseLiteralUnions(node: Json): Json {
  if (Array.isArray(node)) return node.map(collapseLiteralUnions);
  if (node === null || typeof node !== "object") return node;
  const out: { [key: string]: Json } = {};
  for (const [k, v] of Object.entries(node)) out[k] = collapseLiteralUnions(v);
  const branches = out.anyOf;
  if (!Array.isArray(branches) || branches.length === 0) return out;
  const values: Json[] = [];
  for (const b of branches) {
    if (b === null || typeof b !== "object" || Array.isArray(b)) return out;
    if (b.type !== "string" || !Array.isArray(b.enum) || b.enum.length !== 1) return out;
    if (Object.keys(b).some((key) => key !== "type" && key !== "enum")) return out;
    values.push(...b.enum);
  }
  const rest = Object.fromEntries(Object.entries(out).filter(([key]) => key !== "anyOf"));
  return { ...rest, type: "string", enum: values };
}

const target = process.argv[2];
if (target === undefined) throw new Error("usage: tsx tools/provider-openapi.ts <output.json>");
const doc = collapseLiteralUnions((await openApiDocument()) as unknown as Json);
await writeFile(target, `${JSON.stringify(doc, null, 2)}\n`);
