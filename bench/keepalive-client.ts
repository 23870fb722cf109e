import { Agent, request } from "node:http";

/** `POST /namespaces` of {@link keepAliveClient}: resolves with the new Namespace's ID. */
export type PostNamespace = (name: string) => Promise<string>;

/**
 * P5's load generator: `POST /namespaces` over `node:http` with a keep-alive agent of
 * `connections` sockets. pgbench, the other side of the ratio, is a C client whose own cost
 * per transaction is negligible; on a 2-core machine the bench's clients share the cores with
 * the API they measure, and `fetch` (undici) spent about three times the CPU per request of
 * `node:http` (1.7 vs 0.5 ms against a trivial server, scratch measurement 2026-12-02) — more
 * than the API itself. The bench logs what its clients cost per create either way.
 */
export function keepAliveClient(
  url: string,
  key: string,
  connections: number,
): { post: PostNamespace; close(): void } {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const target = new URL("/namespaces", url);
  const post: PostNamespace = (name) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({ name });
      const req = request(
        target,
        {
          method: "POST",
          agent,
          headers: {
            authorization: `Bearer ${key}`,
            "content-type": "application/json",
            "content-length": Buffer.byteLength(body),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("error", reject);
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            if (res.statusCode !== 201) {
              reject(new Error(`POST /namespaces: ${String(res.statusCode)} ${text}`));
              return;
            }
            resolve((JSON.parse(text) as { data: { id: string } }).data.id);
          });
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  return {
    post,
    close: () => {
      agent.destroy();
    },
  };
}
