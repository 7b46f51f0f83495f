// SSRF through the API (docs/api.md §15), with private addresses refused (the default):
// at create, every forbidden family, as a literal, in a numeric or dotted spelling, or as a name
// that resolves to it, is 400; at delivery, a name that resolved to a public-looking address at
// create and now resolves to a forbidden one fails its attempt WITHOUT connecting (last_error
// says why) and is retried on the usual schedule. Names are resolved by a resolver this test
// scripts; every socket connect of the process is watched, and test-support's guards stop any
// system lookup and any connection beyond loopback, so a broken check fails here, safely.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import {
  call,
  createAccount,
  createTestContext,
  detailFields,
  expectError,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';
import { fakeClock, type FakeClock } from '../../../test/support/notification-helpers.ts';
import { createEndpoint, deliveryRunner, onlyDelivery, type DeliveryRunner } from '../../../test/support/webhooks.ts';
import {
  blockedConnections,
  scriptedResolver,
  startReceiver,
  systemLookups,
  type Receiver,
} from '../../../test/support/loopback-receivers.ts';

/** Global unicast, so accepted; nothing ever connects to it (the connect watch below proves it). */
const PUBLIC_LOOKING = '93.184.216.34';
const RETRY_SECONDS = 2;

/** One of each forbidden family, with words the refusal must contain. */
const FORBIDDEN: [address: string, why: RegExp][] = [
  ['127.0.0.1', /loopback/],
  ['127.255.0.9', /loopback/],
  ['10.1.2.3', /private/],
  ['172.16.0.1', /private/],
  ['172.31.255.254', /private/],
  ['192.168.1.10', /private/],
  ['169.254.169.254', /link-local/],
  ['100.64.0.1', /shared address space/],
  ['0.0.0.0', /unspecified/],
  ['198.18.0.1', /benchmarking/],
  ['224.0.0.1', /multicast/],
  ['240.0.0.1', /reserved/],
  ['::', /unspecified/],
  ['::1', /loopback/],
  ['fc00::1', /unique local/],
  ['fd12:3456::1', /unique local/],
  ['fe80::1', /link-local/],
  ['::ffff:127.0.0.1', /IPv4-mapped 127\.0\.0\.1: loopback/],
  ['::ffff:169.254.169.254', /IPv4-mapped 169\.254\.169\.254: link-local/],
  ['64:ff9b::a00:1', /NAT64/],
];

let ctx: TestContext;
let me: TestAccount;
let time: FakeClock;
let runner: DeliveryRunner;
/** What the scripted resolver answers, per name; a name it does not know does not resolve. */
const dns = new Map<string, string[]>();
const resolver = scriptedResolver((host) => dns.get(host) ?? []);

/** Every TCP connect the process starts while watched: [host, port]. */
const connects: [string, number][] = [];
// eslint-disable-next-line @typescript-eslint/unbound-method -- called below with its socket as `this`
const connect = net.Socket.prototype.connect;
function watchedConnect(this: net.Socket, ...args: unknown[]): net.Socket {
  const first: unknown = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
  if (typeof first === 'object' && first !== null && 'port' in first) {
    const { host, port } = first as net.TcpNetConnectOpts;
    connects.push([host ?? 'localhost', port]);
  }
  return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
}

before(async () => {
  net.Socket.prototype.connect = watchedConnect;
  time = fakeClock();
  ctx = await createTestContext(
    { WEBHOOK_RETRY_SECONDS: `${RETRY_SECONDS},${RETRY_SECONDS}` },
    {
      clock: time.clock,
      // An unknown name answers nothing: "does not resolve".
      resolve: (host) =>
        dns.has(host) ? resolver(host) : Promise.reject(Object.assign(new Error(host), { code: 'ENOTFOUND' })),
    },
  );
  assert.equal(ctx.config.webhooks.allowPrivate, false);
  me = await createAccount(ctx);
  runner = deliveryRunner(ctx.deps);
});

afterEach(() => {
  assert.deepEqual(systemLookups, []);
  assert.deepEqual(blockedConnections, []);
});

after(async () => {
  net.Socket.prototype.connect = connect;
  await runner.close();
  await ctx.close();
});

const create = (url: string) => call(ctx, 'POST', '/v1/webhook_endpoints', { key: me.key, body: { url } });

function assertRefused(res: Awaited<ReturnType<typeof create>>, why?: RegExp): void {
  const error = expectError(res, 400, 'validation_error');
  assert.deepEqual(detailFields(error), ['url']);
  if (why !== undefined) assert.match(error.message, why);
}

describe('SSRF at create: 400 for every forbidden family, however it is spelt', () => {
  test('IP literals of each forbidden family', async () => {
    for (const [address, why] of FORBIDDEN) {
      const host = address.includes(':') ? `[${address}]` : address;
      assertRefused(await create(`https://${host}/hook`), why);
      assertRefused(await create(`http://${host}:8080/hook`), why);
    }
  });

  test('localhost, its subdomains, numeric and dotted spellings, trailing dots, the metadata address', async () => {
    for (const url of [
      'http://localhost/hook',
      'http://LOCALHOST:3000/hook',
      'http://localhost./hook',
      'http://hooks.localhost/hook',
      'http://a.b.localhost./hook',
      'http://2130706433/hook',
      'http://0x7f.1/hook',
      'http://0177.0.0.1/hook',
      'http://127.1/hook',
      'http://127.0.0.1./hook',
      'http://0x7f000001/hook',
      'http://[::ffff:7f00:1]/hook',
      'http://[0:0:0:0:0:0:0:1]/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://0xa9fea9fe/latest/meta-data/',
      'http://0/hook',
    ]) {
      assertRefused(await create(url));
    }
  });

  test('a name that resolves to a forbidden address (any one of its addresses) is refused', async () => {
    for (const [i, [address, why]] of FORBIDDEN.entries()) {
      dns.set(`evil-${i}.example.com`, [address]);
      assertRefused(await create(`https://evil-${i}.example.com/hook`), why);
      // With a trailing dot, and among public addresses: the same.
      assertRefused(await create(`https://evil-${i}.example.com./hook`), why);
      dns.set(`mixed-${i}.example.com`, [PUBLIC_LOOKING, address]);
      assertRefused(await create(`https://mixed-${i}.example.com/hook`), why);
    }
  });

  test('accepted: a name resolving to a public address, and a name that does not resolve yet', async () => {
    dns.set('hooks.example.com', [PUBLIC_LOOKING]);
    await createEndpoint(ctx, me, { url: 'https://hooks.example.com/in' });
    await createEndpoint(ctx, me, { url: 'https://not-yet.example.com/in' });
    await createEndpoint(ctx, me, { url: `https://${PUBLIC_LOOKING}/in` });
    // Then gone again, so the tests below deliver to their own endpoints only.
    const list = await call(ctx, 'GET', '/v1/webhook_endpoints', { key: me.key });
    for (const e of list.json<{ data: { id: string }[] }>().data) {
      const res = await call(ctx, 'DELETE', `/v1/webhook_endpoints/${e.id}`, { key: me.key });
      assert.equal(res.statusCode, 204);
    }
  });
});

describe('SSRF at delivery: a name that moved to a forbidden address', () => {
  let listener: Receiver;
  before(async () => {
    // Listening on the endpoints' port on loopback: a connection that slipped through would land here.
    listener = await startReceiver((_req, res) => res.writeHead(204).end());
  });
  after(() => listener.close());

  test('each family: the attempt fails without connecting, says why, and is retried on the schedule', async () => {
    for (const [i, [address, why]] of FORBIDDEN.entries()) {
      const name = `moved-${i}.example.com`;
      dns.set(name, [PUBLIC_LOOKING]);
      const endpoint = await createEndpoint(ctx, me, { url: `http://${name}:${listener.port}/hook` });
      dns.set(name, [address]);
      const sent = await call(ctx, 'POST', `/v1/webhook_endpoints/${endpoint.id}/test`, { key: me.key });
      assert.equal(sent.statusCode, 202, sent.body);
      connects.length = 0;
      const asked = resolver.calls.length;

      await runner.drain();
      assert.equal(resolver.calls.length, asked + 1, 'the name is resolved again at delivery');
      const first = await onlyDelivery(ctx, me, endpoint.id);
      assert.equal(first.status, 'pending', address);
      assert.equal(first.attempts, 1);
      assert.equal(first.response_status, null);
      assert.ok(
        first.last_error?.startsWith(`refused address: ${name} resolves to ${address}, which is`),
        first.last_error ?? '',
      );
      assert.match(first.last_error ?? '', why);
      assert.equal(first.next_attempt_at, time.clock.iso(RETRY_SECONDS * 1000));

      // Retried on the schedule, and refused again.
      time.advance(RETRY_SECONDS * 1000);
      await runner.drain();
      const second = await onlyDelivery(ctx, me, endpoint.id);
      assert.equal(second.attempts, 2, address);
      assert.equal(second.last_error, first.last_error);

      assert.deepEqual(
        connects.filter(([, port]) => port === listener.port),
        [],
        `nothing dialled the endpoint's port for ${address}`,
      );
      assert.equal(listener.connections.total, 0);
      const gone = await call(ctx, 'DELETE', `/v1/webhook_endpoints/${endpoint.id}`, { key: me.key });
      assert.equal(gone.statusCode, 204);
    }
  });

  test('a name that no longer resolves: a DNS failure, retried, nothing dialled', async () => {
    const name = 'vanished.example.com';
    dns.set(name, [PUBLIC_LOOKING]);
    const endpoint = await createEndpoint(ctx, me, { url: `http://${name}:${listener.port}/hook` });
    dns.delete(name);
    connects.length = 0;
    const sent = await call(ctx, 'POST', `/v1/webhook_endpoints/${endpoint.id}/test`, { key: me.key });
    assert.equal(sent.statusCode, 202, sent.body);
    await runner.drain();
    const d = await onlyDelivery(ctx, me, endpoint.id);
    assert.equal(d.status, 'pending');
    assert.equal(d.attempts, 1);
    assert.match(d.last_error ?? '', /^DNS failure: vanished\.example\.com did not resolve/);
    assert.equal(d.next_attempt_at, time.clock.iso(RETRY_SECONDS * 1000));
    assert.deepEqual(
      connects.filter(([, port]) => port === listener.port),
      [],
    );
    const gone = await call(ctx, 'DELETE', `/v1/webhook_endpoints/${endpoint.id}`, { key: me.key });
    assert.equal(gone.statusCode, 204);
  });

  test('control: the connect watch and the listener do see a connection to that port', async () => {
    connects.length = 0;
    const socket = net.connect(listener.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.destroy();
    assert.deepEqual(connects, [['127.0.0.1', listener.port]]);
    for (let i = 0; listener.connections.total === 0; i += 1) {
      assert.ok(i < 100);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  });

  test('PATCH checks a new URL as create does', async () => {
    dns.set('patched.example.com', [PUBLIC_LOOKING]);
    const endpoint = await createEndpoint(ctx, me, { url: `http://patched.example.com:${listener.port}/hook` });
    const patched = await call(ctx, 'PATCH', `/v1/webhook_endpoints/${endpoint.id}`, {
      key: me.key,
      body: { url: `http://127.0.0.1:${listener.port}/hook` },
    });
    assertRefused(patched, /loopback/);
    const gone = await call(ctx, 'DELETE', `/v1/webhook_endpoints/${endpoint.id}`, { key: me.key });
    assert.equal(gone.statusCode, 204);
  });
});
