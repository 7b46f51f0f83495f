// Over 400 lines on purpose: tables of address cases (one a line) for the three checks of one module, read side by side.
// Webhook URL and address checks (docs/api.md §15). Nothing here connects anywhere: names are
// resolved by fake resolvers the tests control, and every refusal is checked to happen before
// any resolution or connection could.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import {
  checkWebhookUrl,
  isForbiddenAddress,
  resolveAndCheck,
  type HostCheck,
  type Resolver,
  type UrlCheck,
} from './address.ts';

/** A resolver that answers from a table and records every name it was asked. */
function fakeResolver(table: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = (host: string) => {
    calls.push(host);
    const answers = table[host];
    if (answers === undefined) {
      return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }));
    }
    return Promise.resolve(answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  };
  return Object.assign(resolve, { calls });
}

/** The whole check the create route makes: the URL, then its host's addresses. */
async function checkAtCreate(raw: string, allowPrivate = false, resolve: Resolver = fakeResolver({})) {
  const checked = checkWebhookUrl(raw, { allowPrivate });
  if (!checked.ok) return { ok: false as const, reason: checked.reason };
  return resolveAndCheck(checked.url.hostname, { allowPrivate, resolve });
}

function assertRefused(result: HostCheck | UrlCheck, pattern: RegExp, what: string): void {
  assert.equal(result.ok, false, `${what} should be refused`);
  assert.match((result as { reason: string }).reason, pattern, what);
}

// The contract's list (docs/api.md §15), each range by its first and last address.
const CONTRACT_V4: [string, string, RegExp][] = [
  ['0.0.0.0', '0.255.255.255', /unspecified/],
  ['10.0.0.0', '10.255.255.255', /private \(RFC 1918\)/],
  ['100.64.0.0', '100.127.255.255', /carrier-grade NAT/],
  ['127.0.0.0', '127.255.255.255', /loopback/],
  ['169.254.0.0', '169.254.255.255', /link-local \(includes the cloud metadata address\)/],
  ['172.16.0.0', '172.31.255.255', /private \(RFC 1918\)/],
  ['192.168.0.0', '192.168.255.255', /private \(RFC 1918\)/],
  ['198.18.0.0', '198.19.255.255', /benchmarking/],
  ['224.0.0.0', '239.255.255.255', /multicast/],
  ['240.0.0.0', '255.255.255.254', /reserved/],
];

describe('isForbiddenAddress', () => {
  test("refuses the first and last address of every IPv4 range in the contract's list", () => {
    for (const [first, last, reason] of CONTRACT_V4) {
      assert.match(isForbiddenAddress(first) ?? 'allowed', reason, first);
      assert.match(isForbiddenAddress(last) ?? 'allowed', reason, last);
    }
    assert.equal(isForbiddenAddress('169.254.169.254'), 'link-local (includes the cloud metadata address)');
    assert.equal(isForbiddenAddress('255.255.255.255'), 'broadcast');
  });

  test('allows public IPv4 addresses, including the neighbours of every refused range', () => {
    for (const ip of [
      '1.0.0.0',
      '9.255.255.255',
      '11.0.0.0',
      '100.63.255.255',
      '100.128.0.0',
      '126.255.255.255',
      '128.0.0.0',
      '169.253.255.255',
      '169.255.0.0',
      '172.15.255.255',
      '172.32.0.0',
      '192.167.255.255',
      '192.169.0.0',
      '198.17.255.255',
      '198.20.0.0',
      '223.255.255.255',
      '8.8.8.8',
      '93.184.215.14',
    ]) {
      assert.equal(isForbiddenAddress(ip), null, ip);
    }
  });

  test("refuses the contract's IPv6 list", () => {
    const cases: [string, RegExp][] = [
      ['::', /unspecified/],
      ['::1', /loopback/],
      ['0:0:0:0:0:0:0:1', /loopback/],
      ['fc00::1', /unique local/],
      ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', /unique local/],
      ['fe80::1', /link-local/],
      ['febf:ffff::1', /link-local/],
      ['64:ff9b::1', /NAT64/],
      ['64:ff9b::8.8.8.8', /NAT64/], // even towards a public IPv4 address, as the contract says
      ['64:ff9b::a00:1', /NAT64/],
    ];
    for (const [ip, reason] of cases) assert.match(isForbiddenAddress(ip) ?? 'allowed', reason, ip);
  });

  test('judges an IPv4-mapped address by the IPv4 address inside, in any spelling', () => {
    assert.equal(isForbiddenAddress('::ffff:127.0.0.1'), 'IPv4-mapped 127.0.0.1: loopback');
    assert.equal(isForbiddenAddress('::ffff:7f00:1'), 'IPv4-mapped 127.0.0.1: loopback');
    assert.equal(
      isForbiddenAddress('0:0:0:0:0:FFFF:a9fe:a9fe'),
      'IPv4-mapped 169.254.169.254: link-local (includes the cloud metadata address)',
    );
    assert.match(isForbiddenAddress('::ffff:10.1.2.3') ?? 'allowed', /private/);
    assert.match(isForbiddenAddress('::ffff:0.0.0.0') ?? 'allowed', /unspecified/);
    assert.equal(isForbiddenAddress('::ffff:8.8.8.8'), null);
  });

  test('refuses what else never is a public receiver (see the module comment)', () => {
    const cases: [string, RegExp][] = [
      // IPv4-compatible (deprecated): refused whatever it embeds; ipaddr.js alone would read
      // `::a.b.c.d` as IPv4-mapped, so this also pins the hex normalisation before parsing.
      ['::127.0.0.1', /IPv4-compatible.*127\.0\.0\.1/],
      ['::7f00:1', /IPv4-compatible.*127\.0\.0\.1/],
      ['::8.8.8.8', /IPv4-compatible/],
      ['2002:a00:1::', /6to4.*10\.0\.0\.1/], // 6to4 wrapping 10.0.0.1
      ['2002:c0a8:101::1', /6to4.*192\.168\.1\.1/],
      ['2002:808:808::1', /6to4/], // deprecated, refused even around a public IPv4 address
      ['2001:0:4136:e378:8000:63bf:f5ff:fffe', /Teredo.*10\.0\.0\.1/], // client 10.0.0.1, inverted
      ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /Teredo.*192\.0\.2\.45/], // RFC 4380's example
      ['ff02::1', /multicast/],
      ['ff0e::1', /multicast/],
      ['fec0::1', /site-local/],
      ['::ffff:0:a00:1', /IPv4-translated/],
      ['64:ff9b:1::a00:1', /NAT64/],
      ['100::1', /discard-only/],
      ['2001:db8::1', /documentation/],
      ['3fff::1', /documentation/],
      ['2001:2::1', /benchmarking/],
      ['4000::1', /not global unicast/],
      ['1::1', /not global unicast/],
      ['2606:4700::1%eth0', /zone id/],
      ['192.0.0.8', /IETF protocol assignments/],
      ['192.0.2.1', /documentation/],
      ['198.51.100.7', /documentation/],
      ['203.0.113.200', /documentation/],
      ['192.88.99.1', /6to4 relay/],
    ];
    for (const [ip, reason] of cases) assert.match(isForbiddenAddress(ip) ?? 'allowed', reason, ip);
  });

  test('allows global unicast IPv6', () => {
    for (const ip of ['2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '2001:4860:4860::8888', '3ffe:ffff::1']) {
      assert.equal(isForbiddenAddress(ip), null, ip);
    }
  });

  test('refuses anything Node would not dial as an IP address as written', () => {
    for (const s of ['', 'example.com', '0177.0.0.1', '0x7f.0.0.1', '127.1', '2130706433', '[::1]', '1.2.3.4.5']) {
      assert.equal(isForbiddenAddress(s), 'not an IP address', s);
    }
  });

  test('property: every address inside a contract range is refused, as IPv4 and as IPv4-mapped', () => {
    const ranges = CONTRACT_V4.map(([first]) => first)
      .map((first, i) => ipaddr.parseCIDR(`${first}/${[8, 8, 10, 8, 16, 12, 16, 15, 4, 4][i]}`))
      .map(([net, bits]) => ({ base: ipv4ToInt(net.toString()), size: 2 ** (32 - bits) }));
    fc.assert(
      fc.property(fc.constantFrom(...ranges), fc.double({ min: 0, max: 1, noNaN: true }), ({ base, size }, t) => {
        const ip = intToIPv4(base + Math.min(size - 1, Math.floor(t * size)));
        assert.notEqual(isForbiddenAddress(ip), null, ip);
        assert.notEqual(isForbiddenAddress(`::ffff:${ip}`), null, ip);
      }),
    );
  });
});

function ipv4ToInt(ip: string): number {
  return ip.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
}
function intToIPv4(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

describe('checkWebhookUrl', () => {
  test('accepts absolute http and https URLs up to 2,048 characters', () => {
    for (const raw of [
      'https://hooks.example.com/lightbox?x=1',
      'http://example.com:8080/in',
      'https://[2606:4700::1]/',
    ]) {
      const result = checkWebhookUrl(raw);
      assert.ok(result.ok, raw);
      assert.equal(result.url.href, new URL(raw).href);
    }
    const base = 'https://example.com/';
    assert.ok(checkWebhookUrl(base + 'a'.repeat(2048 - base.length)).ok);
    assertRefused(checkWebhookUrl(base + 'a'.repeat(2049 - base.length)), /longer than 2048/, 'a 2,049-character URL');
  });

  test('refuses other schemes, relative URLs and garbage', () => {
    assertRefused(checkWebhookUrl('ftp://example.com/x'), /http or https, not ftp/, 'ftp:');
    assertRefused(checkWebhookUrl('file:///etc/passwd'), /not file/, 'file:');
    assertRefused(checkWebhookUrl('javascript:alert(1)'), /not javascript/, 'javascript:');
    assertRefused(checkWebhookUrl('gopher://127.0.0.1:6379/_INFO'), /not gopher/, 'gopher:');
    assertRefused(checkWebhookUrl('/hooks/in'), /not an absolute URL/, 'a relative URL');
    assertRefused(checkWebhookUrl('//example.com/in'), /not an absolute URL/, 'a scheme-relative URL');
    assertRefused(checkWebhookUrl('example.com'), /not an absolute URL/, 'a bare name');
    assertRefused(checkWebhookUrl(''), /not an absolute URL/, 'nothing');
    assertRefused(checkWebhookUrl('http://'), /not an absolute URL/, 'no host');
  });

  test('refuses credentials in the URL and says why', () => {
    assertRefused(
      checkWebhookUrl('https://user:pass@example.com/'),
      /credentials.*user:pass@.*signature/,
      'user:pass@',
    );
    assertRefused(checkWebhookUrl('https://user@example.com/'), /credentials/, 'user@');
    assertRefused(checkWebhookUrl('https://:secret@example.com/'), /credentials/, ':pass@');
  });

  test('refuses localhost in every spelling unless private addresses are allowed', () => {
    for (const raw of [
      'http://localhost/',
      'http://localhost./',
      'http://localhost..:8080/',
      'http://LOCALHOST/',
      'http://localhost%2E/',
      'http://localhost\u3002/',
      'http://a.localhost/',
      'http://api.a.localhost./x',
    ]) {
      assertRefused(checkWebhookUrl(raw), /local machine/, raw);
      assert.ok(checkWebhookUrl(raw, { allowPrivate: true }).ok, raw);
    }
    assert.ok(checkWebhookUrl('http://localhost.example.com/').ok);
    assert.ok(checkWebhookUrl('http://notlocalhost/').ok);
  });

  test('normalises numeric IPv4 spellings to dotted decimal, which the address check refuses', async () => {
    for (const spelling of [
      '2130706433',
      '0x7f000001',
      '0x7f.1',
      '0177.1',
      '0177.0.0.1',
      '127.1',
      '127.0.0.1.',
      '0x7F.0.0.1.',
      '%31%32%37.0.0.1',
    ]) {
      const result = checkWebhookUrl(`http://${spelling}:8080/hook`);
      assert.ok(result.ok, spelling);
      assert.equal(result.url.hostname, '127.0.0.1', spelling);
      assertRefused(await checkAtCreate(`http://${spelling}:8080/hook`), /127\.0\.0\.1 is loopback/, spelling);
    }
    const metadata = checkWebhookUrl('http://2852039166/latest/meta-data/');
    assert.ok(metadata.ok);
    assert.equal(metadata.url.hostname, '169.254.169.254');
    assertRefused(await checkAtCreate('http://0xa9.0xfe.0xa9.0xfe/'), /link-local/, 'hex metadata address');
    assertRefused(await checkAtCreate('http://0/'), /0\.0\.0\.0 is unspecified/, '0');
    assertRefused(await checkAtCreate('http://012.1/'), /10\.0\.0\.1 is private/, 'octal 10/8');
  });

  test('property: any 32-bit integer host is read as the IPv4 address it spells', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), (n) => {
        const result = checkWebhookUrl(`http://${n}/`);
        assert.ok(result.ok);
        assert.equal(result.url.hostname, intToIPv4(n));
        const hex = checkWebhookUrl(`http://0x${n.toString(16)}/`);
        assert.ok(hex.ok);
        assert.equal(hex.url.hostname, intToIPv4(n));
      }),
    );
  });
});

describe('resolveAndCheck', () => {
  test('checks IP literals as they are, without resolving', async () => {
    const resolve = fakeResolver({});
    const cases: [string, RegExp][] = [
      ['[::1]', /::1 is loopback/],
      ['[::ffff:7f00:1]', /IPv4-mapped 127\.0\.0\.1: loopback/],
      ['[fd12::1]', /unique local/],
      ['[fe80::1]', /link-local/],
      ['[64:ff9b::a00:1]', /NAT64/],
      ['[::]', /unspecified/],
      ['[2002:a00:1::]', /6to4/],
      ['[ff02::1]', /multicast/],
      ['10.0.0.5', /private/],
      ['169.254.169.254', /metadata/],
      ['100.100.100.200', /carrier-grade NAT/],
      ['255.255.255.255', /broadcast/],
      ['198.18.0.1', /benchmarking/],
      ['240.0.0.1', /reserved/],
      ['224.0.0.1', /multicast/],
    ];
    for (const [host, reason] of cases) {
      assertRefused(await resolveAndCheck(host, { allowPrivate: false, resolve }), reason, host);
    }
    for (const raw of ['http://[::1]:9000/', 'http://[0:0:0:0:0:ffff:127.0.0.1]/', 'http://[fe80::abcd]/']) {
      assertRefused(await checkAtCreate(raw, false, resolve), /is /, raw);
    }
    assert.deepEqual(resolve.calls, []);
    assert.deepEqual(await resolveAndCheck('8.8.8.8', { allowPrivate: false, resolve }), {
      ok: true,
      addresses: [{ address: '8.8.8.8', family: 4 }],
    });
    assert.deepEqual(await resolveAndCheck('[2606:4700::1]', { allowPrivate: false, resolve }), {
      ok: true,
      addresses: [{ address: '2606:4700::1', family: 6 }],
    });
  });

  test('refuses a name if any of its addresses is forbidden, naming it', async () => {
    const resolve = fakeResolver({
      'mixed.example': ['93.184.215.14', '10.0.0.7', '2606:4700::1'],
      'mixed6.example': ['93.184.215.14', 'fd00::1'],
      'mapped.example': ['::ffff:192.168.1.1'],
      'rebind.example': ['127.0.0.1'],
      'metadata.example': ['169.254.169.254'],
      'public.example': ['93.184.215.14', '2606:4700::1', '93.184.215.14'],
    });
    const policy = { allowPrivate: false, resolve };
    assert.deepEqual(await resolveAndCheck('mixed.example', policy), {
      ok: false,
      reason: 'mixed.example resolves to 10.0.0.7, which is private (RFC 1918)',
    });
    assertRefused(await resolveAndCheck('mixed6.example', policy), /fd00::1, which is unique local/, 'mixed6');
    assertRefused(await resolveAndCheck('mapped.example', policy), /IPv4-mapped 192\.168\.1\.1/, 'mapped');
    assertRefused(await resolveAndCheck('rebind.example', policy), /127\.0\.0\.1, which is loopback/, 'rebind');
    assertRefused(await checkAtCreate('https://metadata.example./x', false, resolve), /metadata/, 'metadata');
    // Duplicates (getaddrinfo repeats an address per socket type) are kept once.
    assert.deepEqual(await resolveAndCheck('public.example.', policy), {
      ok: true,
      addresses: [
        { address: '93.184.215.14', family: 4 },
        { address: '2606:4700::1', family: 6 },
      ],
    });
    // The trailing dot was stripped and the name lowercased before resolving.
    assert.equal(resolve.calls.at(-1), 'public.example');
  });

  test('refuses localhost names before resolving them', async () => {
    const resolve = fakeResolver({ localhost: ['93.184.215.14'], 'a.localhost': ['93.184.215.14'] });
    for (const host of ['localhost', 'LocalHost.', 'a.localhost', 'a.localhost.']) {
      assertRefused(await resolveAndCheck(host, { allowPrivate: false, resolve }), /local machine/, host);
    }
    assert.deepEqual(resolve.calls, []);
  });

  test('a name that does not resolve, or not in time, is unresolved rather than refused', async () => {
    const resolve = fakeResolver({ 'empty.example': [] });
    assert.deepEqual(await resolveAndCheck('nx.example', { allowPrivate: false, resolve }), {
      ok: 'unresolved',
      reason: 'nx.example did not resolve (ENOTFOUND)',
    });
    assert.equal((await resolveAndCheck('empty.example', { allowPrivate: false, resolve })).ok, 'unresolved');
    const hanging: Resolver = () => new Promise(() => undefined);
    const slow = await resolveAndCheck('slow.example', { allowPrivate: false, resolve: hanging, timeoutMs: 50 });
    assert.deepEqual(slow, { ok: 'unresolved', reason: 'slow.example did not resolve (no answer within 50 ms)' });
  });

  test('a resolver answering something that is not an address is refused', async () => {
    const resolve: Resolver = () => Promise.resolve([{ address: 'evil.example', family: 4 }]);
    assertRefused(await resolveAndCheck('odd.example', { allowPrivate: false, resolve }), /not an IP address/, 'odd');
  });

  test('allowPrivate allows loopback and private addresses, and localhost', async () => {
    const resolve = fakeResolver({ 'intranet.example': ['10.0.0.5', '::1'], localhost: ['127.0.0.1', '::1'] });
    const policy = { allowPrivate: true, resolve };
    assert.deepEqual(await resolveAndCheck('127.0.0.1', policy), {
      ok: true,
      addresses: [{ address: '127.0.0.1', family: 4 }],
    });
    assert.deepEqual(await resolveAndCheck('[::1]', policy), { ok: true, addresses: [{ address: '::1', family: 6 }] });
    assert.deepEqual(await resolveAndCheck('intranet.example', policy), {
      ok: true,
      addresses: [
        { address: '10.0.0.5', family: 4 },
        { address: '::1', family: 6 },
      ],
    });
    assert.equal((await checkAtCreate('http://localhost:3000/hook', true, resolve)).ok, true);
    // ...but not the URL rules.
    assertRefused(await checkAtCreate('ftp://127.0.0.1/', true, resolve), /not ftp/, 'ftp with allowPrivate');
    assertRefused(
      await checkAtCreate('http://u:p@127.0.0.1/', true, resolve),
      /credentials/,
      'userinfo with allowPrivate',
    );
  });

  test('the system resolver answers for localhost from the hosts file', async () => {
    const result = await resolveAndCheck('localhost', { allowPrivate: true });
    assert.ok('addresses' in result, JSON.stringify(result));
    for (const { address } of result.addresses) assert.match(isForbiddenAddress(address) ?? '', /loopback/);
  });
});
