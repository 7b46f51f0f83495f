// A webhook receiver on 127.0.0.1 for the outage run and the webhook benchmark: it verifies
// every delivery with the `standardwebhooks` library (the secret of the endpoint its path names)
// and records it: webhook-id, the status it answered, whether the signature held, the event's
// created_at and when it arrived. It can be down: `refuse` (not listening: connection refused),
// `unavailable` (503 to every delivery), or `accept` (204, after `delayMs`). It runs in-process
// (startReceiver) or in its own process (startReceiverChild: `receiver.ts --child`, driven over
// IPC), so that a benchmark's receiver never shares a core's event loop with what it measures.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { HOST, track } from './procs.ts';

export type ReceiverMode = 'accept' | 'refuse' | 'unavailable';

export interface Receipt {
  /** The request's path: which endpoint it was for (`/hook/<n>`). */
  path: string;
  /** webhook-id: the event's id, the same on every attempt. */
  id: string;
  /** What the receiver answered. */
  status: number;
  /** The signature verified with the endpoint's secret (standardwebhooks). */
  valid: boolean;
  /** The event's created_at (its commit), ms since the epoch. */
  createdAt: number;
  /** When the delivery arrived, ms since the epoch. */
  at: number;
}

export interface ReceiverOptions {
  /** How many ports it listens on (one endpoint destination each); default 1. */
  ports?: number;
  mode?: ReceiverMode;
  /** An accepted delivery is answered after this long (a slower receiver); default 0. */
  delayMs?: number;
}

/** What a receiver is asked for by its driver, in-process or over IPC. */
export interface ReceiverHandle {
  readonly ports: number[];
  setSecret(path: string, secret: string): Promise<void>;
  setMode(mode: ReceiverMode, delayMs?: number): Promise<void>;
  /** Receipts since the last take (or the start); they are handed over once. */
  take(): Promise<Receipt[]>;
  close(): Promise<void>;
}

/**
 * Takes receipts until `expected` of them are accepted (204): every delivery owed, counted at the
 * receivers, not from the node's pending rows (a busy node fans events out a few at a time, so
 * events not fanned out yet have no pending row: decisions/0015). Every receipt taken, accepted or
 * not, also goes to `seen`. Throws after `limitMs`.
 */
export async function takeAccepted(
  receiver: ReceiverHandle,
  expected: number,
  options: { label: string; limitMs: number; seen?: (receipts: Receipt[]) => void },
): Promise<Receipt[]> {
  const started = performance.now();
  const accepted: Receipt[] = [];
  while (accepted.length < expected) {
    if (performance.now() - started > options.limitMs) throw new Error(`${options.label}: ${accepted.length} of ${expected} deliveries after ${options.limitMs / 1000} s`); // prettier-ignore
    await sleep(100);
    const taken = await receiver.take();
    options.seen?.(taken);
    accepted.push(...taken.filter((r) => r.status === 204));
  }
  return accepted;
}

export async function startReceiver(options: ReceiverOptions = {}): Promise<ReceiverHandle> {
  const verifiers = new Map<string, Webhook>();
  let receipts: Receipt[] = [];
  let mode: ReceiverMode = options.mode ?? 'accept';
  let delayMs = options.delayMs ?? 0;

  const handle = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const parts: Buffer[] = [];
    req.on('data', (chunk: Buffer) => parts.push(chunk));
    req.once('end', () => {
      const at = Date.now();
      const body = Buffer.concat(parts).toString('utf8');
      const header = (name: string): string => String(req.headers[name] ?? '');
      const headers = { 'webhook-id': header('webhook-id'), 'webhook-timestamp': header('webhook-timestamp'), 'webhook-signature': header('webhook-signature') }; // prettier-ignore
      const path = req.url ?? '';
      let valid: boolean;
      let createdAt = NaN;
      try {
        const event = verifiers.get(path)?.verify(body, headers) as { id?: unknown; created_at?: unknown } | undefined;
        valid = event !== undefined && event.id === headers['webhook-id'];
        createdAt = Date.parse(String(event?.created_at));
      } catch {
        valid = false;
      }
      const status = mode === 'accept' ? 204 : 503;
      receipts.push({ path, id: headers['webhook-id'], status, valid, createdAt, at });
      const answer = (): void => void res.writeHead(status).end();
      if (status === 204 && delayMs > 0) setTimeout(answer, delayMs);
      else answer();
    });
  };

  const servers = Array.from({ length: options.ports ?? 1 }, () => {
    const server = http.createServer(handle);
    server.keepAliveTimeout = 30_000;
    return server;
  });
  const ports: number[] = [];
  for (const server of servers) {
    server.listen(0, HOST);
    await once(server, 'listening');
    ports.push((server.address() as AddressInfo).port);
  }
  const listening = (): boolean => servers.every((s) => s.listening);
  const stopListening = async (): Promise<void> => {
    await Promise.all(
      servers.map((server) => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        return closed;
      }),
    );
  };

  return {
    ports,
    setSecret(path, secret) {
      verifiers.set(path, new Webhook(secret));
      return Promise.resolve();
    },
    async setMode(next, delay) {
      if (delay !== undefined) delayMs = delay;
      if (next === mode) return;
      mode = next;
      if (next === 'refuse') {
        await stopListening();
      } else if (!listening()) {
        // Back on the same ports: the endpoints' URLs name them.
        for (const [i, server] of servers.entries()) {
          server.listen(ports[i], HOST);
          await once(server, 'listening');
        }
      }
    },
    take() {
      const out = receipts;
      receipts = [];
      return Promise.resolve(out);
    },
    async close() {
      if (listening()) await stopListening();
    },
  };
}

type Message =
  | { op: 'secret'; path: string; secret: string }
  | { op: 'mode'; mode: ReceiverMode; delayMs?: number }
  | { op: 'take' };

/** The receiver in a child process of its own, driven over IPC. */
export async function startReceiverChild(options: ReceiverOptions = {}): Promise<ReceiverHandle> {
  const proc = fork(fileURLToPath(import.meta.url), ['--child', JSON.stringify(options)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const child = track('webhook receiver', proc);
  let queue = Promise.resolve<unknown>(undefined);
  /** One request at a time: each answer is the next message. */
  const ask = <T>(message: Message | null): Promise<T> => {
    const next = queue.then(async () => {
      const answer = once(proc, 'message') as Promise<[T]>;
      if (message !== null) proc.send(message);
      return (await answer)[0];
    });
    queue = next.catch(() => undefined);
    return next;
  };
  const ports = await ask<number[]>(null);
  return {
    ports,
    setSecret: (path, secret) => ask({ op: 'secret', path, secret }),
    setMode: (mode, delayMs) => ask({ op: 'mode', mode, ...(delayMs === undefined ? {} : { delayMs }) }),
    take: () => ask<Receipt[]>({ op: 'take' }),
    close: () => child.stop(5_000),
  };
}

if (process.argv[2] === '--child' && process.send !== undefined) {
  const receiver = await startReceiver(JSON.parse(process.argv[3] ?? '{}') as ReceiverOptions);
  process.on('message', (message: Message) => {
    const reply = (value: unknown): void => void process.send?.(value);
    if (message.op === 'secret') void receiver.setSecret(message.path, message.secret).then(() => reply(true));
    else if (message.op === 'mode') void receiver.setMode(message.mode, message.delayMs).then(() => reply(true));
    else void receiver.take().then(reply);
  });
  process.once('disconnect', () => process.exit(0));
  process.once('SIGTERM', () => process.exit(0));
  process.send(receiver.ports);
}

export interface Tally {
  /** Distinct (endpoint, webhook-id) pairs answered 2xx at least once. */
  delivered: number;
  /** Receipts of a pair after it had been answered 2xx: deliveries made twice after a success. */
  duplicates: number;
  /** Receipts whose signature did not verify. */
  invalid: number;
  /** Every receipt: attempts that reached the receiver. */
  receipts: number;
  /** The pairs' first 2xx, ms after the event's created_at, sorted. */
  latencies: number[];
  /** The (path, id) pairs delivered. */
  pairs: Set<string>;
}

/** Counts receipts: what was delivered, what was delivered twice after a success, what was forged. */
export function tally(receipts: readonly Receipt[]): Tally {
  const succeeded = new Map<string, number>();
  let duplicates = 0;
  let invalid = 0;
  const sorted = [...receipts].sort((a, b) => a.at - b.at);
  for (const r of sorted) {
    if (!r.valid) invalid += 1;
    const pair = `${r.path} ${r.id}`;
    if (succeeded.has(pair)) duplicates += 1;
    else if (r.status >= 200 && r.status < 300) succeeded.set(pair, r.at - r.createdAt);
  }
  return {
    delivered: succeeded.size,
    duplicates,
    invalid,
    receipts: receipts.length,
    latencies: [...succeeded.values()].sort((a, b) => a - b),
    pairs: new Set(succeeded.keys()),
  };
}
