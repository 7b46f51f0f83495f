// Media from a URL (docs/api.md §21): the file is fetched by the service and becomes media
// exactly as a multipart upload of that one file does (media.service.ts `upload`: the same
// sniffing, per-file limit, cleanup ledger, commit path, events and variants). This module only
// opens the URL, with the webhooks' address rules and their pinned-address agents (one mechanism
// for every outgoing request, src/outbound/address.ts and .agents.ts): the URL
// and every redirect (at most 5) are checked before connecting, and the connection goes to the
// address that was checked. The body is handed on as a stream, never buffered; a stall of
// `stallMs` without a byte, a cut connection or a non-2xx answer is 422 `fetch_failed`.
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { PassThrough, type Readable } from 'node:stream';
import { AppError, validationError } from '../../errors.ts';
import { checkWebhookUrl, resolveAndCheck, type Resolver } from '../../outbound/address.ts';
import { WebhookAgentPool, type Destination } from '../../outbound/agents.ts';

const MEDIA_FETCH_USER_AGENT = 'Lightbox-Media-Fetch/1';
const MAX_REDIRECTS = 5;
/** No byte for this long: the fetch gives up (docs/api.md §21). */
const FETCH_STALL_MS = 30_000;

export interface UrlFetchOptions {
  /** The account the file is fetched for: its fetches wait behind its own only. */
  account: string;
  allowPrivate: boolean;
  resolve: Resolver;
  maxBytes: number;
  stallMs?: number;
  agents?: WebhookAgentPool;
}

export interface FetchedFile {
  filename: string;
  stream: Readable;
}

const fetchFailed = (why: string): AppError => new AppError('fetch_failed', `The file could not be fetched: ${why}`);

/**
 * Agents per account and destination (kept-alive connections reused within an account). Each
 * account has its own 10 connections to a host, so one account's slow imports, however many,
 * make only its own further fetches from that host wait, never another account's. Nothing caps
 * the total here, on purpose: a shared cap is what let one account starve the others. The total
 * is bounded where the fetches come from: each is one API request in progress, and those are
 * capped per key and per client address (HTTP_MAX_IN_FLIGHT_PER_KEY, ..._PER_ADDRESS); see
 * decisions/0026. More destinations are kept than for webhooks as each account counts apart.
 */
const sharedAgents = new WebhookAgentPool({ maxDestinations: 1024, maxSocketsPerDestination: 10 });

/** The name: `filename`, else Content-Disposition's, else the path's last segment, else `download`. */
function fetchedName(given: string | undefined, disposition: string | undefined, url: URL): string {
  if (given !== undefined && given.trim() !== '') return given;
  if (disposition !== undefined) {
    const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(disposition)?.[1];
    if (extended !== undefined) {
      try {
        const name = decodeURIComponent(extended.trim());
        if (name !== '') return name;
      } catch {
        // A malformed extended name: the plain one, or the path's, stands.
      }
    }
    const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/.exec(disposition);
    const name = (plain?.[1]?.replace(/\\(.)/g, '$1') ?? plain?.[2] ?? '').trim();
    if (name !== '') return name;
  }
  const segment = url.pathname.split('/').at(-1) ?? '';
  try {
    const decoded = decodeURIComponent(segment);
    if (decoded !== '') return decoded;
  } catch {
    if (segment !== '') return segment;
  }
  return 'download';
}

/** Opens the URL (following up to 5 checked redirects); resolves once a 2xx answer's headers arrive. */
export async function openUrl(
  raw: string,
  filename: string | undefined,
  options: UrlFetchOptions,
): Promise<FetchedFile> {
  const stallMs = options.stallMs ?? FETCH_STALL_MS;
  const agents = options.agents ?? sharedAgents;
  let current = raw;
  for (let hop = 0; ; hop += 1) {
    const checked = checkWebhookUrl(current, { allowPrivate: options.allowPrivate });
    if (!checked.ok) {
      throw hop === 0
        ? validationError('url', checked.reason)
        : validationError('url', `redirects to a refused URL: ${checked.reason}`);
    }
    const url = checked.url;
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const resolved = await resolveAndCheck(host, {
      allowPrivate: options.allowPrivate,
      resolve: options.resolve,
      timeoutMs: stallMs,
    });
    if (resolved.ok === false) {
      throw validationError('url', hop === 0 ? resolved.reason : `redirects to a refused address: ${resolved.reason}`);
    }
    if (resolved.ok === 'unresolved') throw fetchFailed(`${host} could not be resolved (${resolved.reason})`);
    const protocol = url.protocol === 'https:' ? 'https:' : 'http:';
    const destination: Destination = {
      protocol,
      host,
      port: url.port === '' ? (protocol === 'https:' ? 443 : 80) : Number(url.port),
      addresses: resolved.addresses,
    };
    const response = await request(url, destination, agents.agentFor(destination, options.account), stallMs);
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (status >= 300 && status < 400 && location !== undefined) {
      response.resume();
      if (hop >= MAX_REDIRECTS) throw fetchFailed(`more than ${MAX_REDIRECTS} redirects`);
      // The server's Location is not ours to trust: one that is no URL is its failure, not ours.
      if (!URL.canParse(location, url.href)) throw fetchFailed('the server redirected to an address that is not a URL');
      current = new URL(location, url).toString();
      continue;
    }
    if (status < 200 || status > 299) {
      response.resume();
      throw fetchFailed(`the server answered HTTP ${status}`);
    }
    const length = Number(response.headers['content-length'] ?? Number.NaN);
    if (Number.isFinite(length) && length > options.maxBytes) {
      response.destroy();
      throw new AppError('payload_too_large', `The file is over the per-file limit of ${options.maxBytes} bytes`);
    }
    return {
      filename: fetchedName(filename, response.headers['content-disposition'], url),
      stream: guarded(response, stallMs),
    };
  }
}

function request(url: URL, destination: Destination, agent: http.Agent, stallMs: number): Promise<IncomingMessage> {
  const name = destination.host.replace(/\.+$/, '');
  const options: https.RequestOptions = {
    agent,
    method: 'GET',
    host: destination.host,
    port: destination.port,
    path: `${url.pathname}${url.search}`,
    headers: { host: url.host, 'user-agent': MEDIA_FETCH_USER_AGENT, accept: '*/*' },
  };
  // Certificates are checked against the URL's name (never against an IP literal as SNI).
  if (destination.protocol === 'https:' && net.isIP(name) === 0) options.servername = name;
  return new Promise((resolve, reject) => {
    const req = (destination.protocol === 'https:' ? https : http).request(options);
    // No socket by the deadline: the agent (this account's own, for this destination) had every
    // connection busy with the account's other fetches, and the host was never asked.
    let gotSocket = false;
    req.once('socket', () => (gotSocket = true));
    const timer = setTimeout(() => {
      req.destroy();
      reject(
        fetchFailed(
          gotSocket
            ? `no answer within ${stallMs / 1000} s`
            : `this account's other fetches from ${destination.host} kept its ${agent.maxSockets} connections busy for ${stallMs / 1000} s`,
        ),
      );
    }, stallMs);
    req.on('response', (res) => {
      clearTimeout(timer);
      resolve(res);
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(fetchFailed(err.message));
    });
    req.end();
  });
}

/** The body, failing with `fetch_failed` when it stalls for `stallMs` or the connection is cut. */
function guarded(response: IncomingMessage, stallMs: number): Readable {
  const out = new PassThrough();
  let timer: NodeJS.Timeout | undefined;
  let failed = false;
  // The first cause is the one told: destroying the answer after a stall also reports a cut.
  const fail = (why: string): void => {
    clearTimeout(timer);
    if (failed) return;
    failed = true;
    out.destroy(fetchFailed(why));
    response.destroy();
  };
  const arm = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => fail(`no byte for ${stallMs / 1000} s`), stallMs);
  };
  arm();
  response.on('data', arm);
  response.on('aborted', () => fail('the connection was cut'));
  response.on('error', (err) => fail(`the connection was cut (${err.message})`));
  response.on('end', () => {
    clearTimeout(timer);
    if (!response.complete) fail('the connection was cut');
  });
  // The consumer went away (the upload was refused): stop reading the answer.
  out.on('close', () => {
    clearTimeout(timer);
    if (!response.complete) response.destroy();
  });
  response.pipe(out);
  return out;
}
