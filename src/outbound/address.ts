// Where a webhook may be sent (docs/api.md §15): the URL's syntax, and the addresses its host
// is or resolves to. A webhook URL is chosen by a caller, so without these checks the service
// would make requests into its own network on that caller's behalf (SSRF).
//
// The refused addresses are the contract's list plus whatever else is never a public receiver:
// IANA's special-purpose ranges that are not globally reachable (documentation, benchmarking,
// IETF protocol assignments, discard-only), tunnels and translators that carry an IPv4 address
// inside an IPv6 one (6to4, Teredo, IPv4-compatible, SIIT, both NAT64 prefixes: whichever IPv4
// they embed, a relay or translator on the path decides where the packet lands), site-local and
// multicast, and, by default, every IPv6 address outside 2000::/3 (the only block IANA
// allocates for global unicast, so anything else is special or unassigned). An IPv4-mapped
// address (::ffff:a.b.c.d) is one that a dual-stack socket sends to a.b.c.d, so it is judged as
// that IPv4 address.
import { promises as dns } from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/** The longest URL accepted (docs/api.md §15). */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

function ranges(list: Record<string, string[]>): [string, Range[]][] {
  return Object.entries(list).map(([reason, cidrs]) => [reason, cidrs.map((c) => ipaddr.parseCIDR(c))]);
}

// Order matters where ranges nest: the first match names the reason.
const IPV4_REFUSED = ranges({
  'unspecified ("this network", 0.0.0.0/8)': ['0.0.0.0/8'],
  'private (RFC 1918)': ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'],
  'shared address space (carrier-grade NAT, RFC 6598)': ['100.64.0.0/10'],
  loopback: ['127.0.0.0/8'],
  'link-local (includes the cloud metadata address)': ['169.254.0.0/16'],
  'IETF protocol assignments (192.0.0.0/24)': ['192.0.0.0/24'],
  documentation: ['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24'],
  '6to4 relay anycast (deprecated, RFC 7526)': ['192.88.99.0/24'],
  'benchmarking (RFC 2544)': ['198.18.0.0/15'],
  multicast: ['224.0.0.0/4'],
  broadcast: ['255.255.255.255/32'],
  'reserved (240.0.0.0/4)': ['240.0.0.0/4'],
});

const IPV6_REFUSED = ranges({
  'unspecified (::)': ['::/128'],
  loopback: ['::1/128'],
  'IPv4-translated (SIIT, RFC 6145)': ['::ffff:0:0:0/96'],
  'NAT64 (reaches IPv4 through a translator)': ['64:ff9b::/96', '64:ff9b:1::/48'],
  'discard-only (RFC 6666)': ['100::/64'],
  'benchmarking (RFC 5180)': ['2001:2::/48'],
  documentation: ['2001:db8::/32', '3fff::/20'],
  'unique local (private, fc00::/7)': ['fc00::/7'],
  'link-local': ['fe80::/10'],
  'site-local (deprecated)': ['fec0::/10'],
  multicast: ['ff00::/8'],
});

const IPV4_MAPPED = ipaddr.parseCIDR('::ffff:0:0/96');
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');
const SIX_TO_FOUR = ipaddr.parseCIDR('2002::/16');
const TEREDO = ipaddr.parseCIDR('2001::/32');
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

function firstMatch(addr: ipaddr.IPv4 | ipaddr.IPv6, table: [string, Range[]][]): string | null {
  for (const [reason, list] of table) {
    if (list.some((range) => addr.kind() === range[0].kind() && addr.match(range))) return reason;
  }
  return null;
}

/** The IPv4 address in two 16-bit groups of an IPv6 address (optionally inverted, as Teredo stores it). */
function embeddedIPv4(parts: number[], at: number, invert = false): string {
  const hi = (parts[at] ?? 0) ^ (invert ? 0xffff : 0);
  const lo = (parts[at + 1] ?? 0) ^ (invert ? 0xffff : 0);
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]).toString();
}

/**
 * Null if a webhook may be sent to `ip`, else a short reason. Only the strict spellings Node
 * itself would connect to are accepted (`net.isIP`), so what is checked here is what is dialled.
 */
export function isForbiddenAddress(ip: string): string | null {
  const family = net.isIP(ip);
  if (family === 0) return 'not an IP address';
  if (family === 4) return firstMatch(ipaddr.IPv4.parse(ip), IPV4_REFUSED);

  const [bare = '', zone] = ip.split('%');
  // ipaddr.js reads `::a.b.c.d` as IPv4-mapped (a convenience of its own), which is not the
  // address Node would dial; the URL serializer first writes every IPv6 address in plain hex.
  const v6 = ipaddr.IPv6.parse(new URL(`http://[${bare}]/`).hostname.slice(1, -1));
  if (v6.match(IPV4_MAPPED)) {
    const inner = isForbiddenAddress(v6.toIPv4Address().toString());
    return inner === null ? null : `IPv4-mapped ${v6.toIPv4Address().toString()}: ${inner}`;
  }
  const named = firstMatch(v6, IPV6_REFUSED);
  if (named !== null) return named;
  const parts = v6.parts;
  if (v6.match(IPV4_COMPATIBLE)) return `IPv4-compatible (deprecated; embeds ${embeddedIPv4(parts, 6)})`;
  if (v6.match(SIX_TO_FOUR)) return `6to4 (deprecated tunnel; embeds ${embeddedIPv4(parts, 1)})`;
  if (v6.match(TEREDO)) return `Teredo (tunnel; embeds ${embeddedIPv4(parts, 6, true)})`;
  if (!v6.match(GLOBAL_UNICAST)) return 'not global unicast (outside 2000::/3)';
  if (zone !== undefined) return 'scoped address (zone id)';
  return null;
}

/** `localhost` and its subdomains (RFC 6761) resolve to loopback whatever DNS says. */
function isLocalhostName(name: string): boolean {
  return name === 'localhost' || name.endsWith('.localhost');
}

/** A host name as it is compared and resolved: no IPv6 brackets, no trailing dots, lower case. */
function bareHost(host: string): string {
  const unbracketed = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return unbracketed.replace(/\.+$/, '').toLowerCase();
}

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

/**
 * The syntax of a webhook URL: absolute http or https, at most 2,048 characters, no
 * credentials, a host; and, unless `allowPrivate`, not `localhost` or `*.localhost`. The WHATWG
 * parser normalises the host (numeric IPv4 spellings such as `2130706433`, `0x7f.1` or `0177.1`
 * become dotted decimal; `%2E` and ideographic full stops become dots), so the later address
 * check sees the address a client would dial. Addresses are checked by `resolveAndCheck`.
 */
export function checkWebhookUrl(raw: string, options: { allowPrivate?: boolean } = {}): UrlCheck {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) {
    return { ok: false, reason: `the URL is longer than ${MAX_WEBHOOK_URL_LENGTH} characters` };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'not an absolute URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, reason: `the scheme must be http or https, not ${url.protocol.slice(0, -1)}` };
  }
  if (url.username !== '' || url.password !== '') {
    return {
      ok: false,
      reason:
        'credentials in the URL (user:pass@) are not allowed: they would be stored and shown as ' +
        'part of the URL; receivers authenticate deliveries by the webhook signature',
    };
  }
  const name = bareHost(url.hostname);
  if (name === '') return { ok: false, reason: 'the URL has no host' };
  if (options.allowPrivate !== true && isLocalhostName(name)) {
    return { ok: false, reason: `${name} is the local machine` };
  }
  return { ok: true, url };
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to its addresses (all of them, in the resolver's order). */
export type Resolver = (host: string) => Promise<readonly { address: string; family: number }[]>;

export const systemResolver: Resolver = (host) => dns.lookup(host, { all: true, order: 'verbatim' });

export interface AddressPolicy {
  /** `WEBHOOK_ALLOW_PRIVATE=true`: private and loopback addresses are allowed. */
  allowPrivate: boolean;
  /** Defaults to the system resolver (`dns.lookup`, as any other client on the machine). */
  resolve?: Resolver;
  /** How long a lookup may take before the host counts as unresolved (default 5 s). */
  timeoutMs?: number;
}

export type HostCheck =
  { ok: true; addresses: ResolvedAddress[] } | { ok: false; reason: string } | { ok: 'unresolved'; reason: string };

function resolveWithin(resolve: Resolver, host: string, timeoutMs: number): ReturnType<Resolver> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([resolve(host), timeout]).finally(() => clearTimeout(timer));
}

/**
 * The addresses a webhook to `host` may be sent to. An IP literal is checked as it is; a name is
 * resolved and refused if ANY of its addresses is forbidden (a client may connect to any of
 * them). `allowPrivate` skips the address checks. A name that does not resolve is
 * `unresolved`: accepted at create, a failed attempt at delivery.
 */
export async function resolveAndCheck(host: string, policy: AddressPolicy): Promise<HostCheck> {
  const name = bareHost(host);
  if (name === '') return { ok: false, reason: 'no host' };
  const literal = net.isIP(name);
  if (literal !== 0) {
    const why = policy.allowPrivate ? null : isForbiddenAddress(name);
    if (why !== null) return { ok: false, reason: `${name} is ${why}` };
    return { ok: true, addresses: [{ address: name, family: literal === 4 ? 4 : 6 }] };
  }
  if (!policy.allowPrivate && isLocalhostName(name)) return { ok: false, reason: `${name} is the local machine` };

  let answers: Awaited<ReturnType<Resolver>>;
  try {
    answers = await resolveWithin(policy.resolve ?? systemResolver, name, policy.timeoutMs ?? 5_000);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { ok: 'unresolved', reason: `${name} did not resolve (${code ?? (err as Error).message})` };
  }
  const addresses: ResolvedAddress[] = [];
  for (const { address } of answers) {
    const family = net.isIP(address);
    if (family === 0) return { ok: false, reason: `${name} resolved to ${JSON.stringify(address)}, not an IP address` };
    const why = policy.allowPrivate ? null : isForbiddenAddress(address);
    if (why !== null) return { ok: false, reason: `${name} resolves to ${address}, which is ${why}` };
    if (!addresses.some((a) => a.address === address)) addresses.push({ address, family: family === 4 ? 4 : 6 });
  }
  if (addresses.length === 0) return { ok: 'unresolved', reason: `${name} has no addresses` };
  return { ok: true, addresses };
}
