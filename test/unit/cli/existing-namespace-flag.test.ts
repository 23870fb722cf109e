/**
 * `occ namespaces create --existing-namespace` is checked before anything is sent: the real
 * `occ` process, pointed at an HTTP server that counts the requests it receives, exits non-zero
 * naming the flag and the fix, and no request arrives. A valid label is sent (the control).
 */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runOccAsync } from "../../harness/occ.js";

let server: Server;
let url = "";
let connections = 0;

beforeAll(async () => {
  server = createServer((_req, res) => {
    connections++;
    res.writeHead(503, { "content-type": "application/json" }).end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  url = `http://127.0.0.1:${address.port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

function create(existingNamespace: string) {
  return runOccAsync(
    ["namespaces", "create", "team", `--existing-namespace=${existingNamespace}`, "--server", url],
    { env: { OCC_API_KEY: "occ_0000000000000000_notakey", OCC_API_URL: undefined } },
  );
}

describe("occ namespaces create --existing-namespace", () => {
  it("refuses an empty value and a value that is not a DNS-1123 label, sending nothing", async () => {
    const cases: [string, RegExp][] = [
      ["", /--existing-namespace is empty: give the operator-owned .* or leave the flag out/],
      [
        "Team-A",
        /--existing-namespace "Team-A" is not a Kubernetes namespace name: give a DNS-1123 label/,
      ],
      ["-lead", /--existing-namespace "-lead" is not a Kubernetes namespace name/],
      ["x".repeat(64), /is not a Kubernetes namespace name: give a DNS-1123 label of 1 to 63/],
    ];
    const results = await Promise.all(cases.map(([value]) => create(value)));
    for (const [i, [value, message]] of cases.entries()) {
      const r = results[i];
      expect(r?.status, value).toBe(1);
      expect(r?.stderr, value).toMatch(message);
      expect(r?.stderr, value).toMatch(/nothing was sent/);
    }
    expect(connections).toBe(0);
  }, 60_000);

  it("a valid label is sent (the server sees the request)", async () => {
    const r = await create("team-a");
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/HTTP_503/);
    expect(connections).toBe(1);
  }, 60_000);
});
