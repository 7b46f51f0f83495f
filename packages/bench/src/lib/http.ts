// The benches' one HTTP client for single requests to 127.0.0.1 (the load itself goes through
// wrk or autocannon: load.ts). Every bench that asks the API something one request at a time
// goes through send(): its status, headers, body and how long it took.
import http from 'node:http';

export const HOST = '127.0.0.1';

export interface Sent {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** From the request's start to the body's end. */
  ms: number;
}

export interface SendOptions {
  /** An API key, sent as `Authorization: Bearer`. */
  key?: string | undefined;
  body?: Buffer | string | undefined;
  /** The body's content type (default application/json). */
  type?: string | undefined;
  /** A kept-alive agent, false for a connection of its own (closed after), or Node's global agent. */
  agent?: http.Agent | false | undefined;
  headers?: http.OutgoingHttpHeaders;
  /** No answer within this long is an error (default 30 s). */
  timeoutMs?: number;
}

export function send(port: number, method: string, pathname: string, options: SendOptions = {}): Promise<Sent> {
  const { key, body, type = 'application/json', agent, timeoutMs = 30_000 } = options;
  const payload = typeof body === 'string' ? Buffer.from(body) : body;
  const headers: http.OutgoingHttpHeaders = { ...options.headers };
  if (agent === false) headers.connection = 'close';
  if (key !== undefined) headers.authorization = `Bearer ${key}`;
  if (payload !== undefined) {
    headers['content-type'] = type;
    headers['content-length'] = payload.length;
  }
  const started = performance.now();
  return new Promise<Sent>((resolve, reject) => {
    const req = http.request(
      { host: HOST, port, method, path: pathname, ...(agent === undefined ? {} : { agent }), headers },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (chunk: Buffer) => parts.push(chunk));
        res.once('error', reject);
        res.once('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(parts).toString('utf8'),
            ms: performance.now() - started,
          }),
        );
      },
    );
    req.once('error', reject);
    req.setTimeout(timeoutMs, () =>
      req.destroy(new Error(`${method} ${pathname}: no answer within ${timeoutMs / 1000} s`)),
    );
    req.end(payload);
  });
}
