// One webhook attempt: POST a body to an endpoint's URL and say what happened in words an
// operator can act on (docs/api.md §15). The URL and its addresses are checked again at every
// attempt, and the connection goes to an address that was just checked (the agent's lookup
// answers only with those), so a name that moved to a private address since the endpoint was
// created is refused without connecting. The receiver cannot hold us: one deadline covers the
// whole exchange, redirects are not followed, and at most `excerptBytes` of its answer is read.
import type { ClientRequest, IncomingMessage } from 'node:http';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { checkWebhookUrl, resolveAndCheck, type Resolver } from '../../outbound/address.ts';
import { WebhookAgentPool, type Destination } from '../../outbound/agents.ts';

const WEBHOOK_USER_AGENT = 'Lightbox-Webhooks/1';

export interface WebhookRequest {
  /** The endpoint's URL as stored; it is checked again here. */
  url: string | URL;
  body: string | Uint8Array;
  /** Added to the request (the signature headers); cannot replace the fixed ones below. */
  headers?: Readonly<Record<string, string>>;
  /** The whole exchange: resolving, connecting, the response and its excerpt. Default 10 s. */
  timeoutMs?: number;
  /** How much of the response body is read and returned. Default 2,048 bytes. */
  excerptBytes?: number;
  /**
   * The endpoint sent to: its connections are its own, never shared with another endpoint on the
   * same host, so one that never answers cannot hold the connections the others need (the pool's owners).
   */
  endpointId?: string;
}

export interface SenderOptions {
  /** `WEBHOOK_ALLOW_PRIVATE=true`: private and loopback addresses may be reached. */
  allowPrivate: boolean;
  resolve?: Resolver;
  /** Where kept-alive connections live; a process-wide pool by default. */
  agents?: WebhookAgentPool;
}

export interface SendResult {
  /** A 2xx within the timeout. */
  ok: boolean;
  /** The response's status, if one arrived. */
  status: number | null;
  /** The start of the response body as UTF-8 text (null if no response arrived). */
  excerpt: string | null;
  /** Why the attempt failed, for `last_error`; null on success. */
  error: string | null;
  durationMs: number;
}

type Outcome = Omit<SendResult, 'durationMs'>;

/** The process-wide pool used when the caller passes none. */
const defaultAgentPool = new WebhookAgentPool();

/** Sends one webhook. Never throws: every fault is a result with an `error`. */
export async function sendWebhook(request: WebhookRequest, options: SenderOptions): Promise<SendResult> {
  const started = performance.now();
  const timeoutMs = request.timeoutMs ?? 10_000;
  const deadline = started + timeoutMs;
  const failed = (error: string): Outcome => ({ ok: false, status: null, excerpt: null, error });
  let outcome: Outcome;
  try {
    outcome = await attempt(request, options, timeoutMs, deadline, failed);
  } catch (err) {
    outcome = failed(`could not send: ${(err as Error).message}`);
  }
  return { ...outcome, durationMs: Math.round(performance.now() - started) };
}

async function attempt(
  request: WebhookRequest,
  options: SenderOptions,
  timeoutMs: number,
  deadline: number,
  failed: (error: string) => Outcome,
): Promise<Outcome> {
  const checked = checkWebhookUrl(String(request.url), { allowPrivate: options.allowPrivate });
  if (!checked.ok) return failed(`refused URL: ${checked.reason}`);
  const url = checked.url;
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;

  const resolved = await beforeDeadline(
    // The deadline bounds the lookup; the resolver's own limit is set beyond it.
    resolveAndCheck(host, {
      allowPrivate: options.allowPrivate,
      resolve: options.resolve,
      timeoutMs: timeoutMs + 1000,
    }),
    deadline,
  );
  if (resolved === TIMED_OUT) return failed(`timed out after ${duration(timeoutMs)} (resolving ${host})`);
  if (resolved.ok === false) return failed(`refused address: ${resolved.reason}`);
  if (resolved.ok === 'unresolved') return failed(`DNS failure: ${resolved.reason}`);

  const protocol = url.protocol === 'https:' ? 'https:' : 'http:';
  const destination: Destination = {
    protocol,
    host,
    port: url.port === '' ? (protocol === 'https:' ? 443 : 80) : Number(url.port),
    addresses: resolved.addresses,
  };
  const body = typeof request.body === 'string' ? Buffer.from(request.body) : request.body;
  return exchange({
    url,
    destination,
    body,
    headers: request.headers ?? {},
    excerptBytes: request.excerptBytes ?? 2048,
    timeoutMs,
    deadline,
    agents: options.agents ?? defaultAgentPool,
    owner: request.endpointId,
    retryStale: true,
  });
}

interface Exchange {
  url: URL;
  destination: Destination;
  body: Uint8Array;
  headers: Readonly<Record<string, string>>;
  excerptBytes: number;
  timeoutMs: number;
  deadline: number;
  agents: WebhookAgentPool;
  /** Whose connections these are (the endpoint's id): the pool gives each owner agents of its own. */
  owner: string | undefined;
  /** Whether a kept-alive connection found closed may be replaced once by a new one. */
  retryStale: boolean;
}

function exchange(x: Exchange): Promise<Outcome> {
  const { destination, url } = x;
  const agent = x.agents.agentFor(destination, x.owner);
  const name = destination.host.replace(/\.+$/, '');
  return new Promise<Outcome>((settle) => {
    let phase = 'waiting for a free connection to the endpoint';
    let status: number | null = null;
    let response: IncomingMessage | undefined;
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;

    const options: https.RequestOptions = {
      agent,
      method: 'POST',
      host: destination.host,
      port: destination.port,
      path: `${url.pathname}${url.search}`,
      headers: {
        ...x.headers,
        host: url.host,
        'user-agent': WEBHOOK_USER_AGENT,
        'content-type': 'application/json',
        'content-length': String(x.body.byteLength),
      },
    };
    // Certificates are checked against the URL's name (never against an IP literal as SNI).
    if (destination.protocol === 'https:' && net.isIP(name) === 0) options.servername = name;
    const req: ClientRequest = (destination.protocol === 'https:' ? https : http).request(options);

    // One deadline for the whole exchange, whatever phase it is in.
    const timer = setTimeout(
      () => {
        finish({ ok: false, status, excerpt: excerpt(), error: `timed out after ${duration(x.timeoutMs)} (${phase})` });
        req.destroy();
      },
      Math.max(0, x.deadline - performance.now()),
    );

    const finish = (outcome: Outcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      settle(outcome);
    };
    const excerpt = (): string | null => (response === undefined ? null : decodeExcerpt(chunks, x.excerptBytes));

    req.on('socket', (socket) => {
      if (!socket.connecting) {
        phase = 'waiting for the response';
        return;
      }
      phase = 'connecting';
      socket.once(destination.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
        phase = 'waiting for the response';
      });
    });

    req.on('error', (err: NodeJS.ErrnoException) => {
      if (settled) return;
      if (
        x.retryStale &&
        req.reusedSocket &&
        response === undefined &&
        (err.code === 'ECONNRESET' || err.code === 'EPIPE')
      ) {
        // The receiver closed an idle kept-alive connection as we reused it: its other idle
        // connections are likely closed too, so they go, and a new connection is tried once.
        settled = true;
        clearTimeout(timer);
        x.agents.dropIdle(agent);
        settle(exchange({ ...x, retryStale: false }));
        return;
      }
      finish({ ok: false, status, excerpt: excerpt(), error: describeError(err, status) });
    });

    req.on('response', (res) => {
      response = res;
      status = res.statusCode ?? null;
      phase = 'reading the response body';
      const conclude = (): void => finish(verdict(res, decodeExcerpt(chunks, x.excerptBytes)));
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        if (received < x.excerptBytes) chunks.push(chunk);
        received += chunk.length;
        if (received < x.excerptBytes) return;
        conclude();
        // Enough read. A body that is complete leaves the connection for reuse; one still
        // arriving is cut off (checked after this turn, once the parser has seen its end).
        setImmediate(() => {
          if (!res.complete) res.destroy();
        });
      });
      res.on('end', conclude);
      res.on('error', (err: NodeJS.ErrnoException) =>
        finish({ ok: false, status, excerpt: excerpt(), error: describeError(err, status) }),
      );
      res.on('close', () => {
        if (!res.complete) finish({ ok: false, status, excerpt: excerpt(), error: closedEarly(status) });
      });
    });

    req.end(x.body);
  });
}

const TIMED_OUT = Symbol('timed out');

function beforeDeadline<T>(work: Promise<T>, deadline: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, deadline - performance.now()), TIMED_OUT);
  });
  return Promise.race([work, expiry]).finally(() => clearTimeout(timer));
}

function verdict(res: IncomingMessage, excerpt: string): Outcome {
  const status = res.statusCode ?? 0;
  if (status >= 200 && status < 300) return { ok: true, status, excerpt, error: null };
  if (status >= 300 && status < 400) {
    const location = res.headers.location;
    const where = location === undefined ? 'no Location' : `Location: ${clip(location, 300)}`;
    return { ok: false, status, excerpt, error: `redirect ${status} not followed (${where})` };
  }
  return { ok: false, status, excerpt, error: `HTTP ${status} (a 2xx is success)` };
}

function closedEarly(status: number | null): string {
  return status === null
    ? 'connection closed before a complete response'
    : `connection closed before a complete response (after HTTP ${status} headers)`;
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|EPROTO$)|CERT|SELF_SIGNED|UNABLE_TO_/;

/** A network fault in a few words; the addresses and codes are ours, not the receiver's text. */
function describeError(raw: NodeJS.ErrnoException, status: number | null): string {
  // With several checked addresses, Node tries each and reports all of their failures.
  const err = (raw instanceof AggregateError ? (raw.errors[0] as NodeJS.ErrnoException | undefined) : undefined) ?? raw;
  const code = err.code ?? '';
  const { address, port } = err as { address?: unknown; port?: unknown };
  const peer = typeof address === 'string' ? ` (${formatPeer(address, port)})` : '';
  if (code === 'ECONNREFUSED') return `connection refused${peer}`;
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ERR_STREAM_PREMATURE_CLOSE') return closedEarly(status);
  if (code === 'ETIMEDOUT') return `connection timed out${peer}`;
  if (code === 'EHOSTUNREACH') return `host unreachable${peer}`;
  if (code === 'ENETUNREACH') return `network unreachable${peer}`;
  if (code.startsWith('HPE_')) return `invalid HTTP response (${code})`;
  if (TLS_CODE.test(code) || ('library' in err && err.library === 'SSL routines')) return `TLS error: ${err.message}`;
  return `network error: ${code === '' ? err.message : code}`;
}

function formatPeer(address: string, port: unknown): string {
  const host = address.includes(':') ? `[${address}]` : address;
  return typeof port === 'number' ? `${host}:${port}` : host;
}

/** UTF-8 text of at most `limit` bytes, without a character cut in half at the end. */
function decodeExcerpt(chunks: readonly Buffer[], limit: number): string {
  const bytes = Buffer.concat(chunks);
  return new TextDecoder('utf-8').decode(bytes.subarray(0, limit), { stream: true });
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

function duration(ms: number): string {
  return ms >= 1000 && ms % 100 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
