// The group of client addresses one limit applies to: the per-address rate limit of /v1
// (src/http/rate-limit.ts) and the sign-in throttle (modules/accounts) count the same groups.
import { isIPv6 } from 'node:net';

/**
 * An IPv4 address is itself (an IPv4-mapped IPv6 address is its IPv4 address). An IPv6 client
 * usually holds a whole /64, so that is one group (else one machine could spread its guesses
 * over 2^64 addresses), written `2001:db8:0:0::/64`. Anything else is taken as it is.
 */
export function addressGroup(ip: string): string {
  if (!ip.includes(':')) return ip;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped?.[1] !== undefined) return mapped[1];
  if (!isIPv6(ip)) return ip;
  const [head = '', tail = ''] = ip.toLowerCase().split('::');
  const front = head === '' ? [] : head.split(':');
  const back = ip.includes('::') && tail !== '' ? tail.split(':') : [];
  // An embedded IPv4 tail takes two groups; it never reaches the first four.
  const groups = ip.includes('::')
    ? [...front, ...Array<string>(Math.max(0, 8 - front.length - back.length)).fill('0'), ...back]
    : front;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/** Whether a group is an IPv6 /64 (rather than one IPv4 address). */
export const isIPv6Group = (group: string): boolean => group.endsWith('::/64');
