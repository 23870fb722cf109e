/**
 * Raw HTTP/1.1 over a socket, for requests `fetch` refuses to send (a control character in a
 * header, a 20 KiB URL, bytes that are not HTTP) and for reading what node's HTTP server
 * answers before the application sees the request.
 */
import { connect } from "node:net";

/** Writes `request` to `baseUrl`'s host and port and returns the whole response text. */
export function rawHttp(baseUrl: string, request: string | Buffer): Promise<string> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let out = "";
    socket.on("data", (d: Buffer) => (out += d.toString("utf8")));
    socket.on("error", reject);
    socket.on("close", () => {
      resolve(out);
    });
    socket.write(request);
  });
}

/** A raw response's status, `x-request-id` header and parsed JSON body (undefined if none). */
export function parseRawResponse(response: string): {
  status: number;
  requestId: string;
  body: unknown;
} {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? "0");
  const requestId = /\r\nx-request-id: (\S+)\r\n/i.exec(response)?.[1] ?? "";
  const text = response.slice(response.indexOf("\r\n\r\n") + 4);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status, requestId, body };
}
