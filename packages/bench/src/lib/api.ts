// JSON calls to a running `lightbox serve` over kept-alive connections, and an open-loop pacer
// (a steady rate whatever the answers take), for the webhook benchmark and outage scripts.
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { send } from './http.ts';

export interface JsonReply {
  status: number;
  body: unknown;
  text: string;
}

const agents = new Map<number, http.Agent>();
const agentFor = (port: number): http.Agent => {
  let agent = agents.get(port);
  if (agent === undefined) {
    agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
    agents.set(port, agent);
  }
  return agent;
};

/** Closes the kept-alive connections (a node that was killed leaves none worth keeping). */
export function closeAgents(): void {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}

async function api(port: number, key: string, method: string, pathname: string, body?: unknown): Promise<JsonReply> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const { status, text } = await send(port, method, pathname, { key, body: payload, agent: agentFor(port) });
  let parsed: unknown = undefined;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    // Not JSON: the text says what happened.
  }
  return { status, body: parsed, text };
}

/** Like api(), but anything other than `expect` is an error naming the answer. */
export async function apiOk<T>(
  port: number,
  key: string,
  method: string,
  pathname: string,
  body: unknown,
  expect: number,
): Promise<T> {
  const reply = await api(port, key, method, pathname, body);
  if (reply.status !== expect) throw new Error(`${method} ${pathname}: ${reply.status} ${reply.text.slice(0, 500)}`);
  return reply.body as T;
}

/** A webhook endpoint created through the API; `secret` is shown only at creation. */
export interface Endpoint {
  id: string;
  url: string;
  secret: string;
}

export const createEndpoint = (port: number, key: string, url: string, events: string[] = ['*']): Promise<Endpoint> =>
  apiOk<Endpoint>(port, key, 'POST', '/v1/webhook_endpoints', { url, events }, 201);

/** One client: one `client.created` event. `tag` keeps emails unique across runs. */
export const createClient = (port: number, key: string, tag: string, n: number): Promise<JsonReply> =>
  api(port, key, 'POST', '/v1/clients', { name: `Client ${tag} ${n}`, email: `c-${tag}-${n}@bench.invalid` });

/** `count` calls of `work(i)` `inFlight` at a time; rejects on the first failure. */
export async function inParallel(count: number, inFlight: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) await work(next++);
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, count) }, worker));
}

/**
 * Starts `work(i)` at `perSecond` for `seconds`, on schedule whatever earlier calls take (an open
 * loop: a stalled server shows in every call that waited, not as fewer calls). Resolves once
 * every call has settled, with how many were started.
 */
export async function atRate(perSecond: number, seconds: number, work: (i: number) => Promise<void>): Promise<number> {
  const total = Math.round(perSecond * seconds);
  const started = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i += 1) {
    const due = started + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    pending.push(work(i));
  }
  await Promise.all(pending);
  return total;
}
