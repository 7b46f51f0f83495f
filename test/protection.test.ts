// Protective headers on every kind of response, and request bodies that cannot exhaust memory:
// JSON over 1 MiB is 413 even without a Content-Length, and compressed bodies (a gzip bomb
// included) are refused unread, over real HTTP.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import zlib from 'node:zlib';
import { chromium } from 'playwright-core';
import { call, expectError, listeningAccount, type TestAccount, type TestContext } from './support/test-app.ts';
import { pdf } from './support/media-fixtures.ts';
import { upload } from './support/media-helpers.ts';

let ctx: TestContext;
let account: TestAccount;
let port = 0;

before(async () => {
  ({ ctx, account, port } = await listeningAccount());
});
after(() => ctx.close());

const API_CSP = "default-src 'none'; frame-ancestors 'none'";

function assertProtected(headers: http.IncomingHttpHeaders | Record<string, unknown>, what: string): void {
  assert.equal(headers['x-content-type-options'], 'nosniff', what);
  assert.equal(headers['x-frame-options'], 'DENY', what);
  assert.equal(headers['referrer-policy'], 'no-referrer', what);
  assert.match(String(headers['content-security-policy']), /frame-ancestors 'none'|sandbox/, what);
  assert.equal(headers.server, undefined, `${what}: no Server banner`);
  assert.equal(headers['x-powered-by'], undefined, `${what}: no X-Powered-By`);
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A raw request: the body is written in the given chunks, with no Content-Length unless given. */
function send(
  method: string,
  path: string,
  headers: Record<string, string | number>,
  chunks: Iterable<Buffer>,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    // The server may answer and close before the whole body is written: that is the point.
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') reject(err);
    });
    void (async () => {
      for (const chunk of chunks) {
        if (!req.write(chunk)) await new Promise((r) => req.once('drain', r));
        if (req.destroyed) return;
      }
      req.end();
    })();
  });
}

const errorCode = (answer: Answer): string => (JSON.parse(answer.body) as { error: { code: string } }).error.code;

async function galleryCount(): Promise<number> {
  const res = await call(ctx, 'GET', '/v1/listings', { key: account.key });
  return res.json<{ pagination: { total: number } }>().pagination.total;
}

describe('protective headers', () => {
  test('on JSON, errors, health, the OpenAPI document and a bad URL; no-store on the API', async () => {
    const answers = {
      'GET /v1/listings': await call(ctx, 'GET', '/v1/listings', { key: account.key }),
      'POST /v1/listings 400': await call(ctx, 'POST', '/v1/listings', { key: account.key, body: {} }),
      'GET /v1/listings 401': await call(ctx, 'GET', '/v1/listings'),
      'GET /v1/nowhere': await call(ctx, 'GET', '/v1/nowhere'),
      'GET /healthz': await call(ctx, 'GET', '/healthz'),
      'GET /readyz': await call(ctx, 'GET', '/readyz'),
      'GET /v1/openapi.json': await call(ctx, 'GET', '/v1/openapi.json'),
      'GET bad escape': await call(ctx, 'GET', '/v1/listings/%E0%A4%A'),
    };
    for (const [what, res] of Object.entries(answers)) {
      assertProtected(res.headers, what);
      assert.equal(res.headers['content-security-policy'], API_CSP, what);
      assert.equal(res.headers['cache-control'], 'no-store', what);
    }
  });

  test('/docs gets a policy Swagger UI can run under, still never framed', async () => {
    for (const url of ['/docs', '/docs/static/index.html', '/docs/static/swagger-ui-bundle.js']) {
      const res = await call(ctx, 'GET', url);
      assert.ok(res.statusCode === 200 || res.statusCode === 302, `${url}: ${res.statusCode}`);
      assertProtected(res.headers, url);
      const csp = String(res.headers['content-security-policy']);
      assert.match(csp, /script-src 'self'/);
      assert.doesNotMatch(csp, /unsafe-eval/);
      assert.match(csp, /frame-ancestors 'none'/);
    }
  });

  const browser = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  test(
    'Swagger UI at /docs renders in a real browser under its policy, with no violation',
    { skip: existsSync(browser) ? false : `no browser at ${browser} (set CHROMIUM_PATH)`, timeout: 60_000 },
    async () => {
      const chrome = await chromium.launch({ executablePath: browser, args: ['--no-sandbox'] });
      try {
        const page = await chrome.newPage();
        // Chromium reports every refused script, style, image or fetch as a console error.
        const problems: string[] = [];
        page.on('console', (m) => {
          if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text());
        });
        page.on('pageerror', (e) => problems.push(String(e)));
        await page.goto(`http://127.0.0.1:${port}/docs`);
        await page.waitForSelector('.swagger-ui .info .title', { timeout: 20_000 });
        assert.match((await page.textContent('.swagger-ui .info .title')) ?? '', /Lightbox API/);
        await page.waitForSelector('.opblock', { timeout: 20_000 });
        assert.ok((await page.locator('.opblock').count()) > 10, 'the operations are listed');
        assert.deepEqual(problems, []);
      } finally {
        await chrome.close();
      }
    },
  );

  test('media content keeps its own sandbox and caching headers', async () => {
    const listing = await call(ctx, 'POST', '/v1/listings', { key: account.key, body: { address: '1 Media Row' } });
    const id = listing.json<{ id: string }>().id;
    const uploaded = await upload(ctx, account.key, id, [
      { filename: 'a.pdf', contentType: 'application/pdf', data: pdf() },
    ]);
    const media = uploaded.json<{ data: { id: string }[] }>().data[0]!;
    const res = await call(ctx, 'GET', `/v1/listings/${id}/media/${media.id}/content`, { key: account.key });
    assert.equal(res.statusCode, 200);
    assertProtected(res.headers, 'content');
    assert.equal(res.headers['content-security-policy'], "default-src 'none'; sandbox");
    assert.equal(res.headers['cache-control'], 'private, no-cache');
    assert.match(String(res.headers.etag), /^"[0-9a-f]{64}"$/);
  });
});

describe('request bodies', () => {
  test('a chunked JSON body over 1 MiB, with no Content-Length, is 413 and creates nothing', async () => {
    const before = await galleryCount();
    const head = Buffer.from('{"address": "Big", "description": "');
    const filler = Buffer.alloc(64 * 1024, 'a');
    const chunks = [head, ...Array<Buffer>(20).fill(filler), Buffer.from('"}')];
    const res = await send(
      'POST',
      '/v1/listings',
      { authorization: `Bearer ${account.key}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      chunks,
    );
    assert.equal(res.status, 413, res.body);
    assert.equal(errorCode(res), 'payload_too_large');
    assert.equal(await galleryCount(), before);
  });

  test('gzip, deflate and br bodies are 415 with Accept-Encoding: identity; identity is fine', async () => {
    const json = Buffer.from(JSON.stringify({ address: 'Zipped Road' }));
    const encoded: [string, Buffer][] = [
      ['gzip', zlib.gzipSync(json)],
      ['deflate', zlib.deflateSync(json)],
      ['br', zlib.brotliCompressSync(json)],
      ['identity, gzip', zlib.gzipSync(json)],
    ];
    const before = await galleryCount();
    for (const [encoding, body] of encoded) {
      const res = await send(
        'POST',
        '/v1/listings',
        {
          authorization: `Bearer ${account.key}`,
          'content-type': 'application/json',
          'content-encoding': encoding,
          'content-length': body.length,
        },
        [body],
      );
      assert.equal(res.status, 415, `${encoding}: ${res.body}`);
      assert.equal(errorCode(res), 'unsupported_media_type');
      assert.equal(res.headers['accept-encoding'], 'identity');
    }
    const plain = await call(ctx, 'POST', '/v1/listings', {
      key: account.key,
      body: { address: 'Plain Road' },
      headers: { 'content-encoding': 'identity' },
    });
    assert.equal(plain.statusCode, 201);
    assert.equal(await galleryCount(), before + 1);
  });

  test('a gzip bomb (100 MB of zeros in ~100 KB) is refused unread: memory stays flat', async () => {
    const zeros = Buffer.alloc(1024 * 1024);
    const gzip = zlib.createGzip({ level: 9 });
    const parts: Buffer[] = [];
    gzip.on('data', (c: Buffer) => parts.push(c));
    const ended = new Promise((resolve) => gzip.on('end', resolve));
    for (let i = 0; i < 100; i += 1) gzip.write(zeros);
    gzip.end();
    await ended;
    const bomb = Buffer.concat(parts);
    assert.ok(bomb.length < 200 * 1024, `bomb is ${bomb.length} bytes`);

    const gallery = await call(ctx, 'POST', '/v1/listings', { key: account.key, body: { address: 'Bomb Site' } });
    const listingId = gallery.json<{ id: string }>().id;
    const before = await galleryCount();
    const rssBefore = process.memoryUsage().rss;
    for (let i = 0; i < 10; i += 1) {
      for (const [path, type] of [
        ['/v1/listings', 'application/json'],
        [`/v1/listings/${listingId}/media`, 'multipart/form-data; boundary=x'],
      ] as const) {
        const res = await send(
          'POST',
          path,
          {
            authorization: `Bearer ${account.key}`,
            'content-type': type,
            'content-encoding': 'gzip',
            'content-length': bomb.length,
          },
          [bomb],
        );
        assert.equal(res.status, 415, res.body);
      }
    }
    const grown = process.memoryUsage().rss - rssBefore;
    // Inflating even one bomb would take 100 MB.
    assert.ok(grown < 40 * 1024 * 1024, `RSS grew by ${Math.round(grown / 1024 / 1024)} MiB`);
    assert.equal(await galleryCount(), before);
    const media = await call(ctx, 'GET', `/v1/listings/${listingId}/media`, { key: account.key });
    assert.equal(media.json<{ pagination: { total: number } }>().pagination.total, 0);
  });

  test('an encoded /v1 body is refused after the key check and the rate limit (401 first; 415 counted)', async () => {
    const json = zlib.gzipSync(Buffer.from(JSON.stringify({ address: 'Zipped Road' })));
    const headers = { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': json.length };
    // No key: the missing key is the answer, counted against the address like any keyless request.
    const anonymous = await send('POST', '/v1/listings', headers, [json]);
    assert.equal(anonymous.status, 401, anonymous.body);
    assert.equal(typeof anonymous.headers['ratelimit-remaining'], 'string');
    // With a key: 415, with the RateLimit fields, charged to the key like any other request.
    const authed = { ...headers, authorization: `Bearer ${account.key}` };
    const first = await send('POST', '/v1/listings', authed, [json]);
    const second = await send('POST', '/v1/listings', authed, [json]);
    for (const res of [first, second]) {
      assert.equal(res.status, 415, res.body);
      assert.equal(errorCode(res), 'unsupported_media_type');
      for (const name of [
        'ratelimit-limit',
        'ratelimit-remaining',
        'ratelimit-reset',
        'ratelimit',
        'ratelimit-policy',
      ]) {
        assert.equal(typeof res.headers[name], 'string', name);
      }
      // The body is not read, so the connection is closed rather than drained.
      assert.equal(res.headers.connection, 'close');
    }
    assert.equal(Number(second.headers['ratelimit-remaining']), Number(first.headers['ratelimit-remaining']) - 1);
  });

  test('an encoded dashboard form is refused too', async () => {
    const form = zlib.gzipSync(Buffer.from('email=a%40b.test&password=x'));
    const res = await send(
      'POST',
      '/dashboard/sign-in',
      {
        'content-type': 'application/x-www-form-urlencoded',
        'content-encoding': 'gzip',
        'content-length': form.length,
      },
      [form],
    );
    assert.equal(res.status, 415, res.body);
    assert.equal(res.headers['accept-encoding'], 'identity');
    assert.equal(res.headers.connection, 'close');
  });

  test('a 415 for encoding is in the contract’s error body', async () => {
    const res = await call(ctx, 'POST', '/v1/listings', {
      key: account.key,
      body: { address: 'x' },
      headers: { 'content-encoding': 'gzip' },
    });
    assert.match(expectError(res, 415, 'unsupported_media_type').message, /Content-Encoding gzip/);
  });
});
