// Preloaded (`node --import`) into a process that must not reach the network: every outbound
// connection that is not to the loopback is refused and counted, in the main thread and in every
// worker thread (workers inherit --import). fetch, DNS look-ups and sockets are all covered. Each
// thread says on stderr that it is guarded (`# guarded main` or `# guarded worker N`), and each
// refusal is written there at once (`# refused: what`).
import dns from 'node:dns';
import net from 'node:net';
import { isMainThread, threadId } from 'node:worker_threads';

process.stderr.write(`# guarded ${isMainThread ? 'main' : `worker ${threadId}`}\n`);
const loopback = (host: string | undefined): boolean =>
  host === undefined || host === 'localhost' || host === '::1' || /^127\./.test(host) || host === '';

function refuse(what: string): Error {
  process.stderr.write(`# refused: ${what}\n`);
  return new Error(`network refused in this test: ${what}`);
}

const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if ((url.protocol === 'http:' || url.protocol === 'https:') && !loopback(url.hostname))
    throw refuse(`fetch ${url.href}`);
  if (url.protocol !== 'http:' && url.protocol !== 'https:' && url.protocol !== 'data:')
    throw refuse(`fetch ${url.href}`);
  return realFetch(input, init);
};

const realConnect = Reflect.get(net.Socket.prototype, 'connect') as (...args: unknown[]) => net.Socket;
net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
  const first = args[0];
  // connect(options), connect(port, host), connect(path): a Unix socket is local.
  const host =
    typeof first === 'object' && first !== null && 'host' in first
      ? String(first.host)
      : typeof args[1] === 'string'
        ? args[1]
        : 'localhost';
  if (!loopback(host)) throw refuse(`connect ${host}`);
  return Reflect.apply(realConnect, this, args);
};

const realLookup = dns.lookup;
dns.lookup = function (hostname: string, ...rest: unknown[]) {
  if (!loopback(hostname)) throw refuse(`dns ${hostname}`);
  return (realLookup as (...a: unknown[]) => void).call(dns, hostname, ...rest);
} as typeof dns.lookup;
const realPromiseLookup = dns.promises.lookup;
dns.promises.lookup = (async (hostname: string, ...rest: unknown[]) => {
  if (!loopback(hostname)) throw refuse(`dns ${hostname}`);
  return (realPromiseLookup as (...a: unknown[]) => Promise<unknown>).call(dns.promises, hostname, ...rest);
}) as typeof dns.promises.lookup;
