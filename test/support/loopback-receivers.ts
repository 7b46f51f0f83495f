// Receivers for the sender's tests, on loopback only, and guards on the system resolver and on
// outgoing connections: nothing these tests do can reach beyond loopback, even with a bug.
import dns from 'node:dns';
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import type { Resolver } from '../../src/outbound/address.ts';

/**
 * Names the system resolver was asked for. Tests resolve names with their own resolvers; were
 * anything to fall back to the system resolver for a name other than `localhost`, the lookup
 * fails here (and is recorded) instead of asking the network's DNS server.
 */
export const systemLookups: string[] = [];

const realLookup = dns.lookup.bind(dns);
const realPromisesLookup = dns.promises.lookup.bind(dns.promises);
function guarded(host: string): Error | null {
  // IP literals (a server's listen() looks them up too) and localhost never leave the machine.
  if (host === 'localhost' || net.isIP(host) !== 0) return null;
  systemLookups.push(host);
  return Object.assign(new Error(`the test guard refused a system DNS lookup of ${host}`), { code: 'ETESTGUARD' });
}
Object.assign(dns, {
  lookup: (host: string, options: unknown, callback?: (...args: unknown[]) => void) => {
    const cb = typeof options === 'function' ? (options as (...args: unknown[]) => void) : callback;
    const refusal = guarded(host);
    if (refusal !== null) {
      process.nextTick(() => cb?.(refusal));
      return;
    }
    (realLookup as (...args: unknown[]) => void)(host, options, callback);
  },
});
Object.assign(dns.promises, {
  lookup: (host: string, options?: unknown) => {
    const refusal = guarded(host);
    return refusal === null
      ? (realPromisesLookup as (...args: unknown[]) => Promise<unknown>)(host, options)
      : Promise.reject(refusal);
  },
});

/**
 * Connections the guard below stopped. Every socket of the test process that would connect to
 * an address outside loopback fails instead (before any packet), and is recorded here, so a
 * test asserting that nothing was attempted would see a broken check fail loudly and safely.
 */
export const blockedConnections: string[] = [];

const isLoopback = (ip: string): boolean => /^(127\.|::1$|::ffff:127\.)/i.test(ip);
type LookupCallback = (err: Error | null, address: string | dns.LookupAddress[], family?: number) => void;
// eslint-disable-next-line @typescript-eslint/unbound-method -- called below with its socket as `this`
const realConnect = net.Socket.prototype.connect;
function guardedConnect(this: net.Socket, ...args: unknown[]): net.Socket {
  const first: unknown = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
  if (typeof first === 'object' && first !== null && 'port' in first && !('path' in first && first.path)) {
    const options = first as net.TcpNetConnectOpts;
    const host = options.host ?? 'localhost';
    if (net.isIP(host) !== 0 && !isLoopback(host)) {
      blockedConnections.push(host);
      process.nextTick(() =>
        this.destroy(Object.assign(new Error(`the test guard blocked ${host}`), { code: 'ETESTGUARD' })),
      );
      return this;
    }
    if (net.isIP(host) === 0) {
      const inner = options.lookup ?? dns.lookup;
      options.lookup = (name: string, opts: dns.LookupOptions, callback: LookupCallback) => {
        inner(name, opts, (err, address, family) => {
          const all = typeof address === 'string' ? [address] : address.map((a) => a.address);
          const outside = all.filter((a) => !isLoopback(a));
          if (err !== null || outside.length === 0) return callback(err, address, family);
          blockedConnections.push(...outside);
          callback(
            Object.assign(new Error(`the test guard blocked ${outside.join(', ')}`), { code: 'ETESTGUARD' }),
            '',
          );
        });
      };
    }
  }
  return (realConnect as (...a: unknown[]) => net.Socket).apply(this, args);
}
net.Socket.prototype.connect = guardedConnect;

/** A resolver that answers what the test says at the time of each call, and counts calls. */
export function scriptedResolver(answer: (host: string) => string[]): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve: Resolver = (host) => {
    calls.push(host);
    return Promise.resolve(answer(host).map((address) => ({ address, family: net.isIP(address) })));
  };
  return Object.assign(resolve, { calls });
}

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  host: string;
  port: number;
  /** Requests whose body was read, in order. */
  received: Received[];
  /** Connections accepted so far, and how many are open now. */
  connections: { total: number; open: number };
  /** The sockets accepted so far. */
  sockets: net.Socket[];
  url(path?: string, host?: string): string;
  /** Resolves once every connection accepted so far is closed. */
  allClosed(): Promise<void>;
  close(): Promise<void>;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

/** An HTTP server on a loopback address; the handler runs once the request body is read. */
export async function startReceiver(handler: Handler, host = '127.0.0.1', port = 0): Promise<Receiver> {
  const received: Received[] = [];
  const connections = { total: 0, open: 0 };
  const sockets: net.Socket[] = [];
  const server = http.createServer((req, res) => {
    // The sender cutting a connection short is expected here, not a failure of the receiver.
    res.on('error', () => undefined);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  server.on('connection', (socket: net.Socket) => {
    connections.total += 1;
    connections.open += 1;
    sockets.push(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => (connections.open -= 1));
  });
  server.listen(port, host);
  await once(server, 'listening');
  const address = server.address() as net.AddressInfo;
  return {
    host,
    port: address.port,
    received,
    connections,
    sockets,
    url: (path = '/hook', name = host.includes(':') ? `[${host}]` : host) => `http://${name}:${address.port}${path}`,
    allClosed: async () => {
      const closed = (socket: net.Socket) =>
        socket.closed ? Promise.resolve() : new Promise<void>((resolve) => socket.once('close', () => resolve()));
      await Promise.all(sockets.map(closed));
    },
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** A port on 127.0.0.1 that nothing listens on (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}
