import { connect, type Socket } from "node:net";

/** `POST /namespaces` of {@link keepAliveClient}: resolves with the new Namespace's ID. */
export type PostNamespace = (name: string) => Promise<string>;

/**
 * P1's and P5's load generator: `POST /namespaces` as HTTP/1.1 over `connections` persistent
 * TCP connections, one request in flight on each (no pipelining), every answer parsed: status
 * line, `Content-Length`, the JSON body's `data.id`; anything but a 201 with a body rejects.
 *
 * Why not a general client: pgbench, the other side of P5's ratio, is a C client whose own
 * cost per transaction is negligible, while the bench's clients share the two cores with the
 * API they measure. `fetch` (undici) spent about three times the CPU per request of
 * `node:http` (scratch measurement 2026-12-02), and `node:http` with a keep-alive agent still
 * spent 0.19 ms per create (about a third of the API's own 0.6 ms, bench run 2026-12-03); this
 * writes one prebuilt request and reads one answer. The bench logs what its clients cost per
 * create either way.
 */
export function keepAliveClient(
  url: string,
  key: string,
  connections: number,
): { post: PostNamespace; close(): void } {
  const target = new URL(url);
  const head =
    `POST /namespaces HTTP/1.1\r\nhost: ${target.host}\r\nauthorization: Bearer ${key}\r\n` +
    "content-type: application/json\r\nconnection: keep-alive\r\n";
  const idle: Connection[] = [];
  const waiting: ((c: Connection) => void)[] = [];
  const all: Connection[] = [];
  let opened = 0;

  const acquire = (): Promise<Connection> => {
    const ready = idle.pop();
    if (ready !== undefined) return Promise.resolve(ready);
    if (opened < connections) {
      opened += 1;
      const c = new Connection(target.hostname, Number(target.port));
      all.push(c);
      return Promise.resolve(c);
    }
    return new Promise((resolve) => waiting.push(resolve));
  };
  const release = (c: Connection) => {
    const next = waiting.shift();
    if (next !== undefined) next(c);
    else idle.push(c);
  };

  const post: PostNamespace = async (name) => {
    const body = JSON.stringify({ name });
    const c = await acquire();
    try {
      const { status, text } = await c.exchange(
        `${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      if (status !== 201) throw new Error(`POST /namespaces: ${String(status)} ${text}`);
      return (JSON.parse(text) as { data: { id: string } }).data.id;
    } finally {
      release(c);
    }
  };
  return {
    post,
    close: () => {
      for (const c of all) c.close();
    },
  };
}

interface Answer {
  readonly status: number;
  readonly text: string;
}

/** One persistent connection: writes a request, reads exactly one response. */
class Connection {
  private readonly socket: Socket;
  private buffer: Buffer = Buffer.alloc(0);
  private pending: { resolve(a: Answer): void; reject(e: Error): void } | null = null;
  private failure: Error | null = null;

  constructor(host: string, port: number) {
    this.socket = connect({ host, port, noDelay: true });
    this.socket.on("data", (chunk: Buffer) => {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      this.parse();
    });
    const fail = (err: Error) => {
      this.failure = err;
      this.pending?.reject(err);
      this.pending = null;
    };
    this.socket.on("error", fail);
    this.socket.on("close", () => {
      fail(new Error("the API closed the connection"));
    });
  }

  exchange(request: string): Promise<Answer> {
    if (this.failure !== null) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.socket.write(request);
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private parse(): void {
    const end = this.buffer.indexOf("\r\n\r\n");
    if (end === -1 || this.pending === null) return;
    const headers = this.buffer.subarray(0, end).toString("latin1");
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1]);
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(headers)?.[1]);
    if (!Number.isInteger(status) || !Number.isInteger(length)) {
      this.pending.reject(new Error(`unparseable answer: ${headers}`));
      this.pending = null;
      return;
    }
    if (this.buffer.length < end + 4 + length) return;
    const text = this.buffer.subarray(end + 4, end + 4 + length).toString("utf8");
    this.buffer = this.buffer.subarray(end + 4 + length);
    const done = this.pending;
    this.pending = null;
    done.resolve({ status, text });
  }
}
