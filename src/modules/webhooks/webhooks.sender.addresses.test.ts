// Where the sender connects: the address is checked at every send, the connection goes to the
// address that was checked (the resolver is asked once per send, and the system resolver
// never), TLS names the URL's host, and connections are pooled per checked destination.
// Names are resolved by scripted resolvers; test-support's guards stop any system lookup and
// any connection beyond loopback, so a broken check fails here without reaching the network.
import { after, afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  blockedConnections,
  scriptedResolver,
  startReceiver,
  systemLookups,
  type Receiver,
} from '../../../test/support/loopback-receivers.ts';
import { pinnedLookup, WebhookAgentPool } from '../../outbound/agents.ts';
import { sendWebhook } from './webhooks.sender.ts';

const body = '{"id":"evt_1"}';
const pools: WebhookAgentPool[] = [];
const receivers: Receiver[] = [];
function pool(options?: ConstructorParameters<typeof WebhookAgentPool>[0]): WebhookAgentPool {
  const p = new WebhookAgentPool(options);
  pools.push(p);
  return p;
}
async function receiver(handler: Parameters<typeof startReceiver>[0], host?: string, port?: number) {
  const r = await startReceiver(handler, host, port);
  receivers.push(r);
  return r;
}
const ok = (_req: unknown, res: { end(text: string): void }) => res.end('ok');

afterEach(() => {
  // Nothing in any test may have fallen back to the system resolver or left loopback.
  assert.deepEqual(systemLookups, []);
  assert.deepEqual(blockedConnections, []);
});
after(async () => {
  for (const p of pools) p.destroy();
  await Promise.all(receivers.map((r) => r.close()));
});

describe('sendWebhook: addresses', () => {
  test('a name that moved to a private address since the last send is refused without connecting', async () => {
    const r = await receiver(ok);
    let answer = ['127.0.0.1'];
    const resolve = scriptedResolver(() => answer);
    const agents = pool();
    const url = r.url('/hook', 'receiver.test');
    const first = await sendWebhook({ url, body }, { allowPrivate: true, resolve, agents });
    assert.equal(first.ok, true, first.error ?? '');

    answer = ['10.0.0.5'];
    const moved = await sendWebhook({ url, body }, { allowPrivate: false, resolve, agents });
    assert.equal(moved.ok, false);
    assert.equal(moved.status, null);
    assert.equal(moved.error, 'refused address: receiver.test resolves to 10.0.0.5, which is private (RFC 1918)');

    // Nor is the kept-alive connection to 127.0.0.1 reused once loopback is no longer allowed.
    answer = ['127.0.0.1'];
    const back = await sendWebhook({ url, body }, { allowPrivate: false, resolve, agents });
    assert.equal(back.error, 'refused address: receiver.test resolves to 127.0.0.1, which is loopback');

    assert.deepEqual(resolve.calls, ['receiver.test', 'receiver.test', 'receiver.test']);
    assert.equal(r.received.length, 1);
    assert.equal(r.connections.total, 1);
  });

  test('the connection goes to the checked address, resolved once per send', async () => {
    // Only 127.0.0.2 listens: the system's answer for any name would not reach it.
    const r = await receiver(ok, '127.0.0.2');
    const resolve = scriptedResolver(() => ['127.0.0.2']);
    const agents = pool();
    for (let i = 1; i <= 3; i += 1) {
      const result = await sendWebhook(
        { url: r.url('/in', 'receiver.test'), body },
        { allowPrivate: true, resolve, agents },
      );
      assert.equal(result.ok, true, result.error ?? '');
      assert.equal(resolve.calls.length, i);
    }
    assert.equal(r.received.length, 3);
    assert.equal(r.received[0]!.headers.host, `receiver.test:${r.port}`);
    assert.equal(r.connections.total, 1);
  });

  test('a name that moves between addresses gets a connection to each, never a stale one', async () => {
    const a = await receiver(ok, '127.0.0.1');
    const b = await receiver(ok, '127.0.0.2', a.port);
    const answers = [['127.0.0.1'], ['127.0.0.2'], ['127.0.0.1'], ['127.0.0.2']];
    const resolve = scriptedResolver(() => answers.shift() ?? []);
    const agents = pool();
    const url = a.url('/hook', 'moving.test');
    for (let i = 0; i < 4; i += 1) {
      const result = await sendWebhook({ url, body }, { allowPrivate: true, resolve, agents });
      assert.equal(result.ok, true, result.error ?? '');
    }
    assert.equal(a.received.length, 2);
    assert.equal(b.received.length, 2);
    assert.equal(agents.size, 2);
  });

  test('with several checked addresses, one that refuses is followed by the next', async () => {
    const r = await receiver(ok, '127.0.0.1');
    const resolve = scriptedResolver(() => ['127.0.0.3', '127.0.0.1']); // nothing on 127.0.0.3
    const result = await sendWebhook(
      { url: r.url('/hook', 'two.test'), body },
      { allowPrivate: true, resolve, agents: pool() },
    );
    assert.equal(result.ok, true, result.error ?? '');
    assert.equal(r.received.length, 1);
  });

  test('a name with public and private addresses is refused without any connection', async () => {
    const resolve = scriptedResolver(() => ['93.184.215.14', '2606:4700::1', '10.0.0.5']);
    const agents = pool();
    const result = await sendWebhook(
      { url: 'https://mixed.test/hook', body },
      { allowPrivate: false, resolve, agents },
    );
    assert.equal(result.error, 'refused address: mixed.test resolves to 10.0.0.5, which is private (RFC 1918)');
    assert.equal(agents.size, 0);
  });

  test('private and loopback literals are refused without connecting unless allowed', async () => {
    const r = await receiver(ok);
    const v6 = await receiver(ok, '::1');
    const resolve = scriptedResolver(() => []);
    const agents = pool();
    const refused: [string, string][] = [
      [r.url(), 'refused address: 127.0.0.1 is loopback'],
      [`http://2130706433:${r.port}/hook`, 'refused address: 127.0.0.1 is loopback'],
      [`http://0x7f.1:${r.port}/hook`, 'refused address: 127.0.0.1 is loopback'],
      [v6.url(), 'refused address: ::1 is loopback'],
      [`http://[::ffff:127.0.0.1]:${r.port}/hook`, 'refused address: ::ffff:7f00:1 is IPv4-mapped 127.0.0.1: loopback'],
      [`http://localhost:${r.port}/hook`, 'refused URL: localhost is the local machine'],
      [`http://a.localhost.:${r.port}/hook`, 'refused URL: a.localhost is the local machine'],
    ];
    for (const [url, error] of refused) {
      const result = await sendWebhook({ url, body }, { allowPrivate: false, resolve, agents });
      assert.equal(result.error, error, url);
    }
    assert.equal(r.received.length + v6.received.length, 0);
    assert.deepEqual(resolve.calls, []);

    for (const url of [r.url(), v6.url(), `http://2130706433:${r.port}/hook`]) {
      const result = await sendWebhook({ url, body }, { allowPrivate: true, resolve, agents });
      assert.equal(result.ok, true, `${url}: ${result.error}`);
    }
    assert.equal(r.received.length, 2);
    assert.equal(v6.received.length, 1);
  });

  test('a name that does not resolve, or not before the deadline, is a DNS failure', async () => {
    const agents = pool();
    const nx = await sendWebhook(
      { url: 'https://nx.test/hook', body },
      {
        allowPrivate: false,
        resolve: () => Promise.reject(Object.assign(new Error('nx'), { code: 'ENOTFOUND' })),
        agents,
      },
    );
    assert.equal(nx.error, 'DNS failure: nx.test did not resolve (ENOTFOUND)');
    const slow = await sendWebhook(
      { url: 'https://slow.test/hook', body, timeoutMs: 200 },
      { allowPrivate: false, resolve: () => new Promise(() => undefined), agents },
    );
    assert.equal(slow.error, 'timed out after 200 ms (resolving slow.test)');
    assert.equal(agents.size, 0);
  });
});

describe('pinnedLookup', () => {
  const lookup = (addresses: { address: string; family: 4 | 6 }[], options: object) =>
    new Promise<unknown[]>((resolve) => pinnedLookup(addresses)('anything.test', options, (...args) => resolve(args)));
  const both = [
    { address: '127.0.0.1', family: 4 as const },
    { address: '::1', family: 6 as const },
  ];

  test('answers only with the checked addresses, whatever the name', async () => {
    assert.deepEqual(await lookup(both, {}), [null, '127.0.0.1', 4]);
    assert.deepEqual(await lookup(both, { all: true }), [null, both]);
    assert.deepEqual(await lookup(both, { family: 6 }), [null, '::1', 6]);
    assert.deepEqual(await lookup(both, { all: true, family: 'IPv4' }), [null, [both[0]]]);
    const [err] = await lookup([both[0]!], { family: 6 });
    assert.equal((err as NodeJS.ErrnoException).code, 'ENOTFOUND');
  });
});

describe('sendWebhook: connection pool', () => {
  test('connections to one destination are bounded by maxSocketsPerDestination', async () => {
    let active = 0;
    let peak = 0;
    const r = await receiver((_req, res) => {
      active += 1;
      peak = Math.max(peak, active);
      setTimeout(() => {
        active -= 1;
        res.end('ok');
      }, 30);
    });
    const agents = pool({ maxSocketsPerDestination: 2 });
    const results = await Promise.all(
      Array.from({ length: 6 }, () => sendWebhook({ url: r.url(), body }, { allowPrivate: true, agents })),
    );
    assert.deepEqual(
      results.map((x) => x.ok),
      [true, true, true, true, true, true],
    );
    assert.equal(peak, 2);
    assert.equal(r.connections.total, 2);
  });

  test("endpoints on one host share no connection: one that never answers holds none of another's", async () => {
    // Endpoints of several studios on one host (an automation platform's, docs/api.md §24).
    const held: { destroy(): void }[] = [];
    const r = await receiver((req, res) => {
      if (req.url === '/dead') held.push(res);
      else res.end('ok');
    });
    const agents = pool({ maxSocketsPerDestination: 2 });
    const hanging = Array.from({ length: 2 }, () =>
      sendWebhook({ url: r.url('/dead'), body, endpointId: 'whe_dead' }, { allowPrivate: true, agents }),
    );
    while (held.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));

    // Both of the dead endpoint's connections are taken; the other endpoint still gets one of its own.
    const other = await sendWebhook(
      { url: r.url('/hook'), body, endpointId: 'whe_other', timeoutMs: 2000 },
      { allowPrivate: true, agents },
    );
    assert.equal(other.ok, true, other.error ?? '');
    assert.equal(agents.size, 2);
    // The dead endpoint's own bound holds: a third request to it waits for one of its two.
    const third = await sendWebhook(
      { url: r.url('/dead'), body, endpointId: 'whe_dead', timeoutMs: 300 },
      { allowPrivate: true, agents },
    );
    assert.equal(third.error, 'timed out after 300 ms (waiting for a free connection to the endpoint)');
    for (const res of held) res.destroy();
    for (const result of await Promise.all(hanging)) assert.equal(result.ok, false);
  });

  test('beyond maxDestinations the least recently used is retired without cutting its delivery', async () => {
    let release = (): void => undefined;
    const slow = await receiver((_req, res) => {
      release = () => res.end('late but fine');
    });
    const other = await receiver(ok);
    const agents = pool({ maxDestinations: 1 });
    const pending = sendWebhook({ url: slow.url(), body }, { allowPrivate: true, agents });
    while (slow.received.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));

    assert.equal((await sendWebhook({ url: other.url(), body }, { allowPrivate: true, agents })).ok, true);
    assert.equal(agents.size, 1);
    release();
    const late = await pending;
    assert.equal(late.ok, true);
    assert.equal(late.excerpt, 'late but fine');
    // The retired destination's connection closes once its delivery is done; the other stays.
    await slow.allClosed();
    assert.equal(other.connections.open, 1);
  });
});

describe('sendWebhook: TLS', () => {
  let dir: string | undefined;
  after(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  function selfSigned(): { key: Buffer; cert: Buffer } | null {
    dir = mkdtempSync(path.join(os.tmpdir(), 'lightbox-webhook-tls-'));
    const [key, cert] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
    try {
      execFileSync('openssl', [
        'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
        '-days', '1', '-subj', '/CN=receiver.test', '-addext', 'subjectAltName=DNS:receiver.test',
        '-keyout', key, '-out', cert,
      ], { stdio: 'ignore' }); // prettier-ignore
    } catch {
      return null;
    }
    return { key: readFileSync(key), cert: readFileSync(cert) };
  }

  test('the TLS name is the URL host, the certificate is verified, and a failure says TLS', async (t) => {
    const pem = selfSigned();
    if (pem === null) return t.skip('openssl is not installed');
    const names: (string | undefined)[] = [];
    const server = https.createServer(
      {
        ...pem,
        SNICallback: (name, done) => {
          names.push(name);
          done(null);
        },
      },
      (_req, res) => res.end('should not be reached'),
    );
    server.on('tlsClientError', () => undefined);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as net.AddressInfo;
    const agents = pool();
    try {
      const resolve = scriptedResolver(() => ['127.0.0.1']);
      const byName = await sendWebhook(
        { url: `https://receiver.test.:${port}/hook`, body },
        { allowPrivate: true, resolve, agents },
      );
      assert.equal(byName.ok, false);
      assert.match(byName.error ?? '', /^TLS error: self[- ]signed certificate/);
      assert.deepEqual(names, ['receiver.test']);

      const byAddress = await sendWebhook(
        { url: `https://127.0.0.1:${port}/hook`, body },
        { allowPrivate: true, agents },
      );
      assert.match(byAddress.error ?? '', /^TLS error: /);
      assert.deepEqual(names, ['receiver.test']); // no name is sent for an IP literal
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
