// `lightbox serve` as it runs in production: a real process on a real port, set up with the
// command line, called over HTTP, stopped with SIGTERM. SQLite by default; a fresh PostgreSQL
// database when DATABASE_URL says so.
import { assertPagination } from './support/api-assertions.ts';
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import {
  freePort,
  runLightbox,
  startLightbox,
  startProcessSuite,
  waitForHealthy,
  type LightboxProcess,
  type ProcessSuite,
} from './support/process-helpers.ts';

let suite: ProcessSuite;

const baseEnv = (): Record<string, string> => suite.env();

/** Starts `lightbox ARGS` with the test's data directory and database. */
const start = (args: string[], env: Record<string, string> = {}, input = ''): LightboxProcess =>
  startLightbox(args, { ...baseEnv(), ...env }, input);

/** Runs a CLI command to the end and returns its stdout; any failure fails the test. */
const cli = (args: string[], input = ''): Promise<string> => runLightbox(args, baseEnv(), input);

async function json(res: Response, status: number): Promise<any> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  return JSON.parse(text);
}

before(async () => {
  suite = await startProcessSuite('lightbox-serve-', 'info');
});

after(() => suite.stop());

void test(
  'lightbox serve: set up with the CLI, used over HTTP, revoked, stopped by SIGTERM',
  { timeout: 60_000 },
  async () => {
    const email = 'owner@serve.test';
    await cli(['accounts', 'create', '--name', 'Serve Studio', '--email', email], 'correct horse battery\n');
    const key = (await cli(['keys', 'create', '--account', email, '--name', 'e2e'])).trim();
    assert.match(key, /^lbx_[0-9A-Za-z]{32,}$/);
    const keyId = /^(key_\S+)\s+e2e\s/m.exec(await cli(['keys', 'list', '--account', email]))?.[1];
    assert.ok(keyId !== undefined);

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const server = start(['serve'], { PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' });
    try {
      await waitForHealthy(base, server, 15_000);
      const headers = { authorization: `Bearer ${key}` };
      const jsonHeaders = { ...headers, 'content-type': 'application/json' };

      const gallery = await json(
        await fetch(`${base}/v1/listings`, {
          method: 'POST',
          headers: jsonHeaders,
          body: JSON.stringify({ address: '  12 Harbour Road ', beds: 3 }),
        }),
        201,
      );
      assert.match(gallery.id, /^lst_/);
      assert.equal(gallery.address, '12 Harbour Road');

      const listings = await json(await fetch(`${base}/v1/listings`, { headers }), 200);
      assert.deepEqual(
        listings.data.map((l: { id: string }) => l.id),
        [gallery.id],
      );
      assertPagination(listings.pagination, { page: 1, limit: 20, total: 1 });

      const client = await json(
        await fetch(`${base}/v1/clients`, {
          method: 'POST',
          headers: jsonHeaders,
          body: JSON.stringify({ name: 'Bo Buyer', email: 'bo@buyer.test' }),
        }),
        201,
      );
      assert.match(client.id, /^cli_/);

      const assigned = await json(
        await fetch(`${base}/v1/clients/${client.id}/listings/${gallery.id}`, { method: 'POST', headers }),
        200,
      );
      assert.equal(assigned.client_id, client.id);

      const read = await json(await fetch(`${base}/v1/clients/${client.id}`, { headers }), 200);
      assert.deepEqual(
        read.listings.map((l: { id: string }) => l.id),
        [gallery.id],
      );

      const openapi = await json(await fetch(`${base}/v1/openapi.json`), 200);
      assert.match(openapi.openapi, /^3\.1/);
      const anonymous = await fetch(`${base}/v1/listings`);
      assert.equal((await json(anonymous, 401)).error.code, 'unauthorized');

      // Revoked by another process (the CLI), the key is refused within 5 seconds.
      await cli(['keys', 'revoke', keyId]);
      const revokedAt = Date.now();
      let status = 0;
      while (Date.now() - revokedAt < 5_000) {
        status = (await fetch(`${base}/v1/listings`, { headers })).status;
        if (status === 401) break;
        await sleep(200);
      }
      assert.equal(status, 401, 'the revoked key is refused within 5 s');
      assert.ok(Date.now() - revokedAt <= 5_000);

      server.child.kill('SIGTERM');
      const { code, signal } = await server.exited;
      assert.equal(signal, null);
      assert.equal(code, 0, server.stderr());

      const lines = server.stdout().trimEnd().split('\n');
      const logs = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      assert.ok(!server.stdout().includes(key), 'no key in the logs');
      assert.ok(!server.stdout().includes(key.slice(12)), 'no part of the secret in the logs');
      const requests = logs.filter((l) => l.msg === 'request');
      assert.ok(requests.length >= 8, 'one line a request');
      for (const line of requests) {
        assert.equal(typeof line.request_id, 'string');
        assert.equal(typeof line.status, 'number');
        assert.ok('key_id' in line);
      }
      assert.ok(requests.some((l) => l.key_id === keyId && l.status === 201));
      assert.ok(logs.some((l) => l.msg === 'stopped'));
      // At start, one info line says where the dashboard, the docs and (no SMTP_URL) the emails are.
      const ready = logs.filter((l) => typeof l.dashboard === 'string');
      assert.equal(ready.length, 1, 'one start-up line');
      assert.equal(ready[0]!.level, 30);
      assert.equal(ready[0]!.dashboard, `${base}/dashboard`);
      assert.equal(ready[0]!.docs, `${base}/docs`);
      assert.match(String(ready[0]!.mailer), new RegExp(`^outbox ${path.join(suite.dataDir, 'outbox')} `));
      assert.match(String(ready[0]!.msg), new RegExp(`dashboard ${base}/dashboard.*${base}/docs`));
    } finally {
      server.child.kill('SIGKILL');
    }
  },
);

void test('lightbox serve with a bad PORT exits non-zero with one line naming PORT', async () => {
  const server = start(['serve'], { PORT: 'eighty' });
  try {
    const { code } = await server.exited;
    assert.equal(code, 1);
    assert.equal(server.stdout(), '');
    const lines = server.stderr().trimEnd().split('\n');
    assert.equal(lines.length, 1, server.stderr());
    assert.match(lines[0]!, /PORT/);
  } finally {
    server.child.kill('SIGKILL');
  }
});

void test(
  'SIGTERM lets an in-flight upload finish, closes kept-alive connections, and exits 0 promptly',
  { timeout: 60_000 },
  async () => {
    const email = `owner.${Date.now()}@sigterm.test`;
    await cli(['accounts', 'create', '--name', 'Sigterm Studio', '--email', email], 'correct horse battery\n');
    const key = (await cli(['keys', 'create', '--account', email, '--name', 'sigterm'])).trim();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const server = start(['serve'], { PORT: String(port), HOST: '127.0.0.1' });
    try {
      await waitForHealthy(base, server, 20_000);
      const agent = new http.Agent({ keepAlive: true });
      const auth = { authorization: `Bearer ${key}` };
      const listing = await request(
        agent,
        port,
        'POST',
        '/v1/listings',
        auth,
        JSON.stringify({ address: '1 Term Rd' }),
      );
      assert.equal(listing.status, 201);
      const listingId = (JSON.parse(listing.body) as { id: string }).id;

      // An upload whose body is still arriving when SIGTERM comes.
      const pdf = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n');
      const boundary = 'sigtermboundary';
      const head = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="late.pdf"\r\n` +
          'Content-Type: application/pdf\r\n\r\n',
      );
      const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
      const upload = http.request({
        agent,
        port,
        host: '127.0.0.1',
        method: 'POST',
        path: `/v1/listings/${listingId}/media`,
        headers: {
          ...auth,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': head.length + pdf.length + tail.length,
        },
      });
      const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
        upload.on('response', (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (c: string) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        upload.on('error', reject);
      });
      upload.write(head);
      upload.write(pdf.subarray(0, 10));
      await sleep(300);
      const signalledAt = Date.now();
      server.child.kill('SIGTERM');
      await sleep(500);
      upload.end(Buffer.concat([pdf.subarray(10), tail]));
      const uploaded = await answered;
      assert.equal(uploaded.status, 201, uploaded.body);

      const { code } = await server.exited;
      assert.equal(code, 0, server.stderr());
      // The kept-alive agent still holds its socket: shutdown must not wait for it to time out.
      assert.ok(Date.now() - signalledAt < 10_000, `exited ${Date.now() - signalledAt} ms after SIGTERM`);
      agent.destroy();
    } finally {
      server.child.kill('SIGKILL');
    }
  },
);

function request(
  agent: http.Agent,
  port: number,
  method: string,
  urlPath: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        port,
        host: '127.0.0.1',
        method,
        path: urlPath,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
