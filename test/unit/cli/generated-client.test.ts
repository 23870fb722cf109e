/**
 * The CLI's client takes only the paths, parameters and bodies the OpenAPI document declares:
 * each `@ts-expect-error` line below fails the typecheck (`tsc --noEmit`) the day it compiles,
 * e.g. when the generated types stop constraining paths. That the committed types are what the
 * served document generates now is tested beside the document's lint
 * (test/unit/api/openapi-lint.test.ts).
 */
import { describe, expect, it } from "vitest";
import { apiClientFrom, requestAs } from "../../../src/cli/api-client.js";
import { NamespaceSchema } from "../../../src/contract/namespaces.js";

describe("the CLI's generated client", () => {
  it("takes only what the document declares (checked by the typecheck)", async () => {
    const client = await apiClientFrom({}, { OCC_API_URL: "http://127.0.0.1:1", OCC_API_KEY: "k" });
    // Never sent: each line must fail to compile.
    const wrong = () => [
      // @ts-expect-error a path the document does not declare
      client.request("GET", "/namespace"),
      // @ts-expect-error a method the path does not take
      client.request("PUT", "/namespaces"),
      // @ts-expect-error a path parameter missing
      client.request("GET", "/namespaces/{id}"),
      // @ts-expect-error a body field the operation does not take
      requestAs(client, NamespaceSchema, "POST", "/namespaces", { body: { nme: "x" } }),
      // @ts-expect-error a query parameter the operation does not take
      client.request("GET", "/namespaces", { params: { query: { size: 1 } } }),
    ];
    expect(wrong).toBeTypeOf("function");
    // And the ones the CLI sends compile: a path template with its parameter, a typed body.
    const right = () => [
      client.request("GET", "/namespaces/{id}", { params: { path: { id: "ns_a" } } }),
      requestAs(client, NamespaceSchema, "POST", "/namespaces", { body: { name: "support" } }),
    ];
    expect(right).toBeTypeOf("function");
  });
});
