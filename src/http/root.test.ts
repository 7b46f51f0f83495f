// GET / (a signpost: a browser goes to the dashboard, an API client is told where the API and its
// reference are) and the start-up line that says the same to whoever started the service.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { loadConfig } from '../config.ts';
import { prefersHtml } from './root.ts';
import { readyLine } from '../server.ts';
import { call, createTestContext, type TestContext } from '../../test/support/test-app.ts';

let ctx: TestContext;

before(async () => {
  ctx = await createTestContext({ PUBLIC_URL: 'https://photos.example.com/lightbox' });
});

after(async () => {
  await ctx.close();
});

const CHROME = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const FIREFOX = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const SAFARI = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

interface RootBody {
  name: string;
  links: Record<string, string>;
}

describe('GET /', () => {
  test('a browser is sent to the dashboard', async () => {
    for (const accept of [CHROME, FIREFOX, SAFARI, 'text/html']) {
      const res = await call(ctx, 'GET', '/', { headers: { accept } });
      assert.equal(res.statusCode, 303, accept);
      assert.equal(res.headers.location, '/dashboard');
      assert.equal(res.headers.vary, 'Accept');
    }
    // And the dashboard is there (its first page, or the setup form on a fresh install).
    const dashboard = await call(ctx, 'GET', '/dashboard', { headers: { accept: CHROME } });
    assert.ok([200, 303].includes(dashboard.statusCode), `/dashboard answered ${dashboard.statusCode}`);
  });

  test('an API client, curl or a request without Accept gets JSON naming where everything is', async () => {
    for (const accept of [undefined, '*/*', 'application/json', 'application/json, text/html;q=0.5']) {
      const res = await call(ctx, 'GET', '/', accept === undefined ? {} : { headers: { accept } });
      assert.equal(res.statusCode, 200, String(accept));
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.equal(res.headers.vary, 'Accept');
      const body = res.json<RootBody>();
      assert.equal(body.name, 'Lightbox');
      assert.deepEqual(body.links, {
        api: 'https://photos.example.com/lightbox/v1',
        openapi: 'https://photos.example.com/lightbox/v1/openapi.json',
        docs: 'https://photos.example.com/lightbox/docs',
        dashboard: 'https://photos.example.com/lightbox/dashboard',
        health: 'https://photos.example.com/lightbox/healthz',
      });
    }
  });

  test('every link it gives answers, without a key', async () => {
    const body = (await call(ctx, 'GET', '/')).json<RootBody>();
    for (const [name, link] of Object.entries(body.links)) {
      if (name === 'api') continue; // The API's own root is not a resource.
      const url = new URL(link).pathname.replace(/^\/lightbox/, '');
      const res = await call(ctx, 'GET', url, { headers: { accept: name === 'dashboard' ? CHROME : '*/*' } });
      assert.ok([200, 303].includes(res.statusCode), `${name} ${url}: ${res.statusCode}`);
    }
  });

  test('HEAD / answers like GET, and the protective headers are there', async () => {
    const res = await call(ctx, 'HEAD', '/');
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(typeof res.headers['x-request-id'], 'string');
  });
});

describe('which Accept prefers HTML', () => {
  test('only an explicit text/html (or text/*) ranked above JSON and */*', () => {
    for (const accept of [CHROME, 'text/html', 'text/*', 'TEXT/HTML', 'application/json;q=0.5, text/html']) {
      assert.equal(prefersHtml(accept), true, accept);
    }
    for (const accept of [
      undefined,
      '',
      '*/*',
      'application/json',
      'text/html, application/json',
      'text/html;q=0, */*',
      'text/html;q=0.5, */*',
      'text/html;q=nonsense',
      'image/png',
    ]) {
      assert.equal(prefersHtml(accept), false, String(accept));
    }
  });
});

describe('the start-up line', () => {
  test('names the version, database, storage, mailer (the outbox without SMTP_URL), public URL and dashboard', () => {
    const config = loadConfig({ DATA_DIR: '/srv/lightbox', PUBLIC_URL: 'https://photos.example.com/' });
    const { fields, msg } = readyLine(config);
    assert.match(fields.version ?? '', /^\d+\.\d+\.\d+/);
    assert.deepEqual(
      { ...fields, version: undefined },
      {
        version: undefined,
        database: `sqlite ${path.join('/srv/lightbox', 'lightbox.db')}`,
        storage: `local ${path.join('/srv/lightbox', 'media')}`,
        mailer: `outbox ${path.join('/srv/lightbox', 'outbox')} (no SMTP_URL: emails are written there, not sent)`,
        public_url: 'https://photos.example.com',
        dashboard: 'https://photos.example.com/dashboard',
        docs: 'https://photos.example.com/docs',
      },
    );
    for (const value of Object.values(fields)) assert.ok(msg.includes(value), `${value} in ${msg}`);
    assert.match(msg, /^ready; Lightbox /);
    assert.doesNotMatch(msg, /\n/);
  });

  test('never a password: not of DATABASE_URL, SMTP_URL or the S3 keys', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://lightbox:Pa55word@db.internal:5432/lightbox?sslmode=require',
      SMTP_URL: 'smtps://user:Pa55word@smtp.example.com:465',
      MEDIA_STORAGE: 's3://studio-media/originals',
      S3_ENDPOINT: 'https://s3.example.com',
      AWS_ACCESS_KEY_ID: 'AKIAEXAMPLEKEY',
      AWS_SECRET_ACCESS_KEY: 'Pa55wordSecret',
      PUBLIC_URL: 'https://photos.example.com',
    });
    const { fields, msg } = readyLine(config);
    assert.equal(fields.database, 'postgresql postgres://db.internal:5432/lightbox');
    assert.equal(fields.storage, 's3://studio-media/originals at https://s3.example.com');
    assert.equal(fields.mailer, 'smtps://smtp.example.com:465');
    assert.doesNotMatch(msg + JSON.stringify(fields), /Pa55word|AKIAEXAMPLEKEY|lightbox:|user:|sslmode/);
  });
});
