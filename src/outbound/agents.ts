// Kept-alive connections for outgoing requests (webhook deliveries, media fetched from a URL).
// One agent per destination, where a destination is the URL's protocol, host and port AND the
// addresses that were checked for it: a socket is only ever reused for the same checked
// addresses, and the agent's lookup can only return those addresses, so no connection reaches an
// address that was not checked (docs/api.md §15).
// An agent may also belong to an owner (the account a media fetch is for, the webhook endpoint a
// delivery is for): owners never share an agent, so one owner's requests queue behind its own
// only, and one that never answers cannot hold the connections another's wait for (decisions/0026,
// decisions/0019).
// When DNS moves a name, the next delivery gets a new agent; the old one is retired by the LRU.
import type { LookupAddress, LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress } from './address.ts';

export interface Destination {
  protocol: 'http:' | 'https:';
  /** The URL's host name, without brackets. */
  host: string;
  port: number;
  /** The checked addresses of `host`, in the order to try them. */
  addresses: readonly ResolvedAddress[];
}

export interface AgentPoolOptions {
  /** Destinations kept at once; the least recently used is retired beyond this. Default 256. */
  maxDestinations?: number;
  /**
   * Connections open at once to one destination (per owner, when `agentFor` is given one) from
   * this node, which bounds how many requests to one endpoint run at once here; further ones
   * wait their turn. Default 10.
   */
  maxSocketsPerDestination?: number;
  /** How long an idle connection is kept (less if the receiver's Keep-Alive says so). Default 15 s. */
  idleTimeoutMs?: number;
}

/**
 * A lookup that answers only with the checked addresses, whatever name it is asked for, so
 * nothing resolves the name a second time (a rebinding DNS server could answer differently).
 */
export function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname: string, options: LookupOptions, callback) => {
    const family =
      options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
    const usable: LookupAddress[] = addresses.filter((a) => family === 0 || a.family === family);
    const first = usable[0];
    if (first === undefined) {
      callback(Object.assign(new Error('no checked address of the requested family'), { code: 'ENOTFOUND' }), '', 0);
    } else if (options.all === true) {
      callback(null, usable);
    } else {
      callback(null, first.address, first.family);
    }
  };
}

function destinationKey(d: Destination, owner: string | undefined): string {
  const where = `${d.protocol}//${d.host}:${d.port}@${d.addresses.map((a) => a.address).join(',')}`;
  return owner === undefined ? where : `${owner} ${where}`;
}

export class WebhookAgentPool {
  readonly #agents = new Map<string, http.Agent>();
  readonly #maxDestinations: number;
  readonly #maxSockets: number;
  readonly #idleTimeoutMs: number;

  constructor(options: AgentPoolOptions = {}) {
    this.#maxDestinations = options.maxDestinations ?? 256;
    this.#maxSockets = options.maxSocketsPerDestination ?? 10;
    this.#idleTimeoutMs = options.idleTimeoutMs ?? 15_000;
  }

  /** Destinations with an agent now. */
  get size(): number {
    return this.#agents.size;
  }

  /**
   * The agent for a destination (and `owner`, if given: each owner has agents of its own, with
   * `maxSocketsPerDestination` each), made on first use; marks it most recently used.
   */
  agentFor(destination: Destination, owner?: string): http.Agent {
    const key = destinationKey(destination, owner);
    const existing = this.#agents.get(key);
    if (existing !== undefined) {
      this.#agents.delete(key);
      this.#agents.set(key, existing);
      return existing;
    }
    const options: http.AgentOptions = {
      keepAlive: true,
      maxSockets: this.#maxSockets,
      maxFreeSockets: this.#maxSockets,
      timeout: this.#idleTimeoutMs,
      scheduling: 'lifo',
    };
    // Agent options reach every connection it makes: the lookup is part of the destination.
    const withLookup = { ...options, lookup: pinnedLookup(destination.addresses) };
    const agent = destination.protocol === 'https:' ? new https.Agent(withLookup) : new http.Agent(withLookup);
    this.#agents.set(key, agent);
    for (const [oldest, old] of this.#agents) {
      if (this.#agents.size <= this.#maxDestinations) break;
      this.#agents.delete(oldest);
      retire(old);
    }
    return agent;
  }

  /** Closes the idle connections of an agent (after one of them turned out to be stale). */
  dropIdle(agent: http.Agent): void {
    for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
  }

  /** Closes every connection, in use or not (at shutdown). */
  destroy(): void {
    for (const agent of this.#agents.values()) agent.destroy();
    this.#agents.clear();
  }
}

/**
 * An agent no longer in the pool closes its idle connections now and every other one when its
 * delivery ends; a delivery in flight is not cut short.
 */
function retire(agent: http.Agent): void {
  agent.keepSocketAlive = () => false;
  for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
}
