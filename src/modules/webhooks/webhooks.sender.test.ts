// The sender against real receivers on 127.0.0.1: what each kind of answer or fault becomes.
// Loopback is a private address, so these sends allow private addresses; the address checks at
// send time are in webhooks.sender.addresses.test.ts.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import {
  blockedConnections,
  closedPort,
  startReceiver,
  systemLookups,
  type Receiver,
} from '../../../test/support/loopback-receivers.ts';
import { WebhookAgentPool } from '../../outbound/agents.ts';
import { sendWebhook, type WebhookRequest } from './webhooks.sender.ts';

const agents = new WebhookAgentPool();
const receivers: Receiver[] = [];
after(async () => {
  agents.destroy();
  await Promise.all(receivers.map((r) => r.close()));
  assert.deepEqual(systemLookups, []);
  assert.deepEqual(blockedConnections, []);
});

async function receiver(handler: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const r = await startReceiver(handler);
  receivers.push(r);
  return r;
}

const send = (request: WebhookRequest) => sendWebhook(request, { allowPrivate: true, agents });
const body = JSON.stringify({ id: 'evt_1', type: 'listing.created', data: { object: { id: 'lst_1' } } });

describe('sendWebhook', () => {
  test('a 2xx is success; the receiver gets the body, the given headers and the fixed ones', async () => {
    const r = await receiver((_req, res) => res.writeHead(204).end());
    const signature = { 'webhook-id': 'evt_1', 'webhook-timestamp': '1700000000', 'webhook-signature': 'v1,abc' };
    const result = await send({ url: r.url('/in?account=7'), body, headers: signature });
    assert.equal(result.ok, true);
    assert.equal(result.status, 204);
    assert.equal(result.error, null);
    assert.equal(result.excerpt, '');
    assert.ok(result.durationMs >= 0);
    assert.equal(r.received.length, 1);
    const [got] = r.received;
    assert.equal(got!.method, 'POST');
    assert.equal(got!.url, '/in?account=7');
    assert.equal(got!.body, body);
    assert.equal(got!.headers['user-agent'], 'Lightbox-Webhooks/1');
    assert.equal(got!.headers['content-type'], 'application/json');
    assert.equal(got!.headers['content-length'], String(Buffer.byteLength(body)));
    assert.equal(got!.headers.host, `127.0.0.1:${r.port}`);
    assert.equal(got!.headers['webhook-id'], 'evt_1');
    assert.equal(got!.headers['webhook-signature'], 'v1,abc');
  });

  test('the caller cannot replace the fixed headers', async () => {
    const r = await receiver((_req, res) => res.end('ok'));
    const result = await send({
      url: r.url(),
      body,
      headers: { 'User-Agent': 'x', host: 'evil.example', 'Content-Type': 'text/plain' },
    });
    assert.equal(result.ok, true);
    assert.equal(result.excerpt, 'ok');
    assert.equal(r.received[0]!.headers['user-agent'], 'Lightbox-Webhooks/1');
    assert.equal(r.received[0]!.headers['content-type'], 'application/json');
    assert.equal(r.received[0]!.headers.host, `127.0.0.1:${r.port}`);
  });

  test('a 500 is a failure with the start of the body', async () => {
    const r = await receiver((_req, res) =>
      res.writeHead(500, { 'content-type': 'text/plain' }).end('database is down'),
    );
    const result = await send({ url: r.url(), body });
    assert.deepEqual(
      { ...result, durationMs: 0 },
      {
        ok: false,
        status: 500,
        excerpt: 'database is down',
        error: 'HTTP 500 (a 2xx is success)',
        durationMs: 0,
      },
    );
  });

  test('a receiver that never answers fails at the deadline, not later', async () => {
    const r = await receiver(() => undefined); // holds every request forever
    const result = await send({ url: r.url(), body, timeoutMs: 300 });
    assert.equal(result.ok, false);
    assert.equal(result.status, null);
    assert.equal(result.excerpt, null);
    assert.equal(result.error, 'timed out after 300 ms (waiting for the response)');
    assert.ok(result.durationMs >= 299, String(result.durationMs));
    // The abandoned connection is closed rather than left to the receiver.
    await r.allClosed();
  });

  test('the deadline also covers reading the body', async () => {
    const r = await receiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('accepted, but '); // ...and never ends
    });
    const result = await send({ url: r.url(), body, timeoutMs: 300 });
    assert.equal(result.ok, false);
    assert.equal(result.status, 200);
    assert.equal(result.excerpt, 'accepted, but ');
    assert.equal(result.error, 'timed out after 300 ms (reading the response body)');
  });

  test('the default deadline is 10 s and is named in seconds', async () => {
    const r = await receiver(() => undefined);
    const result = await Promise.race([
      send({ url: r.url(), body }),
      new Promise<null>((resolve) => setTimeout(resolve, 1000, null)),
    ]);
    assert.equal(result, null); // still waiting after 1 s: the default is not short
    const explicit = await send({ url: r.url(), body, timeoutMs: 1500 });
    assert.equal(explicit.error, 'timed out after 1.5 s (waiting for the response)');
  });

  test('a redirect is not followed', async () => {
    const r = await receiver((req, res) => {
      if (req.url === '/hook') res.writeHead(302, { location: `http://127.0.0.1:${r.port}/elsewhere` }).end('moved');
      else res.end('should not be reached');
    });
    const result = await send({ url: r.url('/hook'), body });
    assert.equal(result.ok, false);
    assert.equal(result.status, 302);
    assert.equal(result.error, `redirect 302 not followed (Location: http://127.0.0.1:${r.port}/elsewhere)`);
    assert.deepEqual(
      r.received.map((x) => x.url),
      ['/hook'],
    );
    const noLocation = await receiver((_req, res) => res.writeHead(301).end());
    assert.equal((await send({ url: noLocation.url(), body })).error, 'redirect 301 not followed (no Location)');
  });

  test('a closed port is connection refused', async () => {
    const port = await closedPort();
    const result = await send({ url: `http://127.0.0.1:${port}/hook`, body });
    assert.deepEqual(
      { ...result, durationMs: 0 },
      {
        ok: false,
        status: null,
        excerpt: null,
        error: `connection refused (127.0.0.1:${port})`,
        durationMs: 0,
      },
    );
  });

  test('a receiver that closes the connection before or during its response', async () => {
    const before = await receiver((req) => req.socket.destroy());
    const r1 = await send({ url: before.url(), body });
    assert.equal(r1.ok, false);
    assert.equal(r1.status, null);
    assert.equal(r1.error, 'connection closed before a complete response');

    const during = await receiver((req, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('the first ten', () => req.socket.destroy());
    });
    const r2 = await send({ url: during.url(), body });
    assert.equal(r2.ok, false);
    assert.equal(r2.status, 200);
    assert.equal(r2.excerpt, 'the first ten');
    assert.equal(r2.error, 'connection closed before a complete response (after HTTP 200 headers)');
  });

  test('an answer that is not HTTP is an invalid response', async () => {
    const server = net
      .createServer((socket) => socket.on('error', () => undefined).end('SSH-2.0-OpenSSH_9.6\r\n\r\n'))
      .listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as net.AddressInfo;
    const result = await send({ url: `http://127.0.0.1:${port}/`, body });
    server.close();
    assert.equal(result.ok, false);
    assert.match(result.error ?? '', /^invalid HTTP response \(HPE_/);
  });

  test('https to a receiver that does not speak TLS is a TLS error', async () => {
    const r = await receiver((_req, res) => res.end('plain'));
    const result = await send({ url: `https://127.0.0.1:${r.port}/hook`, body });
    assert.equal(result.ok, false);
    assert.match(result.error ?? '', /^TLS error: /);
    assert.equal(r.received.length, 0);
  });

  test('an endless body: the excerpt is bounded, the result prompt and the connection cut', async () => {
    let writing = true;
    const r = await receiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = (): void => {
        while (writing && res.write(chunk));
        if (writing) res.once('drain', pump);
      };
      res.on('close', () => (writing = false));
      pump();
    });
    const result = await send({ url: r.url(), body });
    assert.equal(writing, true, 'the result came while the receiver was still sending');
    assert.equal(result.ok, true);
    assert.equal(result.status, 200);
    assert.equal(result.excerpt, 'x'.repeat(2048));
    await r.allClosed();
    assert.equal(writing, false);
  });

  test('a 10 MB body is cut at excerptBytes', async () => {
    const tenMegabytes = Buffer.alloc(10 * 1024 * 1024, 'y');
    const r = await receiver((_req, res) => res.writeHead(500).end(tenMegabytes));
    const result = await send({ url: r.url(), body, excerptBytes: 100 });
    assert.equal(result.status, 500);
    assert.equal(result.excerpt, 'y'.repeat(100));
  });

  test('the excerpt never ends in half a character', async () => {
    const r = await receiver((_req, res) => res.writeHead(400).end('é'.repeat(2000))); // 2 bytes each
    const result = await send({ url: r.url(), body, excerptBytes: 2047 });
    assert.equal(result.excerpt, 'é'.repeat(1023));
  });

  test('connections to a receiver are kept alive and reused', async () => {
    const r = await receiver((_req, res) => res.end('ok'));
    for (let i = 0; i < 5; i += 1) assert.equal((await send({ url: r.url(), body })).ok, true);
    assert.equal(r.received.length, 5);
    assert.equal(r.connections.total, 1);
  });

  test('a kept-alive connection the receiver closed meanwhile is replaced once', async () => {
    // The receiver drops each connection when a second request arrives on it, as a server whose
    // idle timeout expired as the request was sent would.
    const served = new WeakMap<object, number>();
    const r = await receiver((req, res) => {
      const count = (served.get(req.socket) ?? 0) + 1;
      served.set(req.socket, count);
      if (count > 1) req.socket.destroy();
      else res.end('ok');
    });
    assert.equal((await send({ url: r.url(), body })).ok, true);
    const second = await send({ url: r.url(), body });
    assert.equal(second.ok, true, second.error ?? '');
    assert.equal(r.connections.total, 2);
    assert.equal(r.received.length, 3);
  });

  test('a stored URL that is no longer acceptable is refused without resolving', async () => {
    const result = await send({ url: 'http://user:secret@127.0.0.1:1/hook', body });
    assert.equal(result.ok, false);
    assert.match(result.error ?? '', /^refused URL: credentials/);
  });
});
