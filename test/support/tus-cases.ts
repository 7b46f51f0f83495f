// (Over 400 lines: one storage's whole case list, shared by the local and S3 suites, reads as the contract does.)
// Resumable uploads (docs/api.md §16) on one storage, run by src/modules/uploads/uploads.local.test.ts
// and uploads.s3.test.ts: the protocol with a real client (tus-js-client over real HTTP),
// every refusal, completion exactly once, expiry and gallery deletion removing the bytes; and
// (uploads.large.test.ts) 1 GiB in 8 MiB chunks through a connection cut at random points.
// node:test's describe() and test() return promises that the runner itself awaits.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import * as tus from 'tus-js-client';
import { uploadExpiryHandler } from '../../src/modules/uploads/uploads.expire.job.ts';
import { createJobRunner } from '../../src/mechanisms/queue/queue.runner.ts';
import { call, createAccount, createKey, createTestContext, type TestAccount, type TestContext } from './test-app.ts';
import { skippableTest } from './skippable.ts';
import { jpeg, mp4, pdf } from './media-fixtures.ts';
import { cleanupRows, mediaRows, newGallery, sha256, storedKeys, type MediaJson } from './media-helpers.ts';
import type { StorageUnderTest } from './media-storage-cases.ts';

export const TUS = { 'tus-resumable': '1.0.0' };
const OCTETS = 'application/offset+octet-stream';
const MIB = 1024 * 1024;
const MAX_FILE_BYTES = 64 * MIB;

/** Creates an upload through app.inject; returns its path (Location). */
export async function createUpload(
  ctx: TestContext,
  key: string,
  listingId: string,
  length: number,
  headers: Record<string, string> = {},
): Promise<string> {
  const res = await call(ctx, 'POST', `/v1/listings/${listingId}/uploads`, {
    key,
    headers: { ...TUS, 'upload-length': String(length), ...headers },
  });
  assert.equal(res.statusCode, 201, res.body);
  const location = String(res.headers.location);
  assert.match(location, new RegExp(`^/v1/listings/${listingId}/uploads/upl_[0-9A-Za-z]+$`));
  return location;
}

export async function patch(ctx: TestContext, key: string, url: string, offset: number, data: Buffer) {
  return ctx.app.inject({
    method: 'PATCH',
    url,
    headers: { authorization: `Bearer ${key}`, ...TUS, 'upload-offset': String(offset), 'content-type': OCTETS },
    payload: data,
  });
}

export const head = (ctx: TestContext, key: string, url: string) =>
  ctx.app.inject({ method: 'HEAD', url, headers: { authorization: `Bearer ${key}`, ...TUS } });

/** Runs the expiry jobs that are due, as a serve process would. */
export async function runExpiryJobs(ctx: TestContext): Promise<void> {
  const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
  await createJobRunner(ctx.deps, quiet, uploadExpiryHandler(ctx.deps, ctx.services.uploads, quiet)).drain();
}

const uploadRows = (ctx: TestContext) => ctx.deps.db.kysely.selectFrom('uploads').selectAll().execute();

/** Uploads `source` with tus-js-client; resolves with the completing response's Lightbox-Media-Id. */
export function tusUpload(
  source: Buffer | ReturnType<typeof createReadStream>,
  options: { endpoint: string; key: string; size?: number; chunkSize?: number; filename?: string; uploadUrl?: string },
): Promise<string> {
  return new Promise((resolve, reject) => {
    const upload = new tus.Upload(source, {
      endpoint: options.endpoint,
      ...(options.uploadUrl === undefined ? {} : { uploadUrl: options.uploadUrl }),
      ...(options.size === undefined ? {} : { uploadSize: options.size }),
      chunkSize: options.chunkSize ?? 8 * MIB,
      headers: { authorization: `Bearer ${options.key}` },
      metadata: options.filename === undefined ? {} : { filename: options.filename },
      retryDelays: [0, 100, 250, 500, 1000, 2000, 4000],
      removeFingerprintOnSuccess: true,
      onError: reject,
      onSuccess: ({ lastResponse }) => resolve(lastResponse.getHeader('Lightbox-Media-Id') ?? ''),
    });
    upload.start();
  });
}

/** A file of `size` bytes: `header`, then 64 KiB blocks each filled with its own number (order matters). */
export async function writeTestFile(file: string, header: Buffer, size: number): Promise<string> {
  const handle = await open(file, 'w');
  const hash = createHash('sha256');
  try {
    const block = Buffer.alloc(64 * 1024);
    let written = 0;
    for (let n = 0; written < size; n += 1) {
      block.fill(n % 251);
      if (n === 0) header.copy(block);
      const slice = block.subarray(0, Math.min(block.length, size - written));
      await handle.write(slice, 0, slice.length, written);
      hash.update(slice);
      written += slice.length;
    }
  } finally {
    await handle.close();
  }
  return hash.digest('hex');
}

/** The sha256 of the bytes the API serves for `media`, streamed. */
export async function servedSha256(base: string, key: string, media: { id: string; listing_id: string }) {
  const res = await fetch(`${base}/v1/listings/${media.listing_id}/media/${media.id}/content`, {
    headers: { authorization: `Bearer ${key}` },
  });
  assert.equal(res.status, 200);
  const hash = createHash('sha256');
  for await (const chunk of res.body ?? []) hash.update(chunk as Uint8Array);
  return hash.digest('hex');
}

/** A TCP proxy that cuts the connection each time the bytes sent through it pass the next cut point. */
export async function cuttingProxy(
  target: number,
  cuts: number[],
): Promise<{ port: number; cut: () => number; close: () => Promise<void> }> {
  const pending = [...cuts].sort((a, b) => a - b);
  let sent = 0;
  let done = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target, '127.0.0.1');
    sockets.add(client).add(upstream);
    const end = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('data', (chunk: Buffer) => {
      sent += chunk.length;
      const next = pending[0];
      if (next !== undefined && sent >= next) {
        pending.shift();
        done += 1;
        end();
        return;
      }
      if (!upstream.write(chunk)) client.pause();
    });
    upstream.on('drain', () => client.resume());
    upstream.pipe(client);
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    cut: () => done,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function describeTusCases(name: string, start: () => Promise<StorageUnderTest | string>): void {
  describe(`resumable uploads on ${name} storage`, () => {
    let storage: StorageUnderTest | undefined;
    let skip: string | undefined;
    let ctx: TestContext;
    let owner: TestAccount;
    let other: TestAccount;
    let base: string;

    before(async () => {
      const started = await start();
      if (typeof started === 'string') {
        skip = started;
        return;
      }
      storage = started;
      ctx = await createTestContext({ ...storage.env('tus'), MEDIA_MAX_FILE_BYTES: String(MAX_FILE_BYTES) });
      owner = await createAccount(ctx);
      other = await createAccount(ctx, 'Other studio');
      base = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    });

    after(async () => {
      if (storage === undefined) return;
      await ctx.close();
      await storage.stop();
    });

    const skippable = skippableTest(() => skip);
    const it = (title: string, body: () => Promise<void>, timeout = 120_000): void =>
      skippable(title, body, { timeout });

    it('tus-js-client uploads a photo: one media object at the end of the gallery, as a multipart upload makes', async () => {
      assert.equal(ctx.deps.storage.kind, name === 'S3' ? 's3' : 'local');
      const listingId = await newGallery(ctx, owner);
      const first = await tusUpload(await jpeg(40, 30), {
        endpoint: `${base}/v1/listings/${listingId}/uploads`,
        key: owner.key,
        filename: 'front.jpg',
      });
      const data = await jpeg(640, 480);
      const mediaId = await tusUpload(data, {
        endpoint: `${base}/v1/listings/${listingId}/uploads`,
        key: owner.key,
        chunkSize: 5000,
        filename: 'dir/../kitchen.jpg',
      });
      assert.match(mediaId, /^med_/);
      const res = await call(ctx, 'GET', `/v1/listings/${listingId}/media/${mediaId}`, { key: owner.key });
      assert.equal(res.statusCode, 200, res.body);
      const media = res.json<MediaJson & { variants: { status: string } }>();
      assert.equal(media.kind, 'photo');
      assert.equal(media.content_type, 'image/jpeg');
      assert.equal(media.filename, 'kitchen.jpg');
      assert.equal(media.size, data.length);
      assert.equal(media.sha256, sha256(data));
      assert.deepEqual([media.width, media.height], [640, 480]);
      assert.equal(media.position, 2);
      assert.equal(media.variants.status, 'pending');
      assert.equal(await servedSha256(base, owner.key, media), sha256(data));
      const row = (await mediaRows(ctx, listingId)).find((m) => m.id === mediaId);
      assert.equal(row?.crc32, (await import('node:zlib')).crc32(data));
      // Recorded as the multipart path records it: media.created in the same transaction, its jobs.
      const events = await ctx.deps.db.kysely
        .selectFrom('events')
        .select('data')
        .where('account_id', '=', owner.accountId)
        .where('type', '=', 'media.created')
        .execute();
      assert.ok(events.some((e) => e.data.includes(mediaId)));
      assert.ok(events.some((e) => e.data.includes(first)));
      const jobs = await ctx.deps.db.kysely
        .selectFrom('jobs')
        .select('kind')
        .where('subject_id', '=', mediaId)
        .execute();
      // Its variants and its analysis (docs/api.md §30), as for a multipart upload.
      assert.deepEqual(jobs.map((j) => j.kind).sort(), ['media.analyze', 'media.variants']);
      // The bytes are where the media row says, once; no cleanup row is left for them.
      assert.ok((await storedKeys(ctx)).includes(row?.storage_key ?? ''));
      assert.ok(!(await cleanupRows(ctx)).some((c) => c.storage_key === row?.storage_key));
    });

    it('without a filename the name is upload plus the sniffed extension; creation-with-upload completes in the POST', async () => {
      const listingId = await newGallery(ctx, owner);
      const data = pdf('one request');
      const res = await ctx.app.inject({
        method: 'POST',
        url: `/v1/listings/${listingId}/uploads`,
        headers: {
          authorization: `Bearer ${owner.key}`,
          ...TUS,
          'upload-length': String(data.length),
          'content-type': OCTETS,
        },
        payload: data,
      });
      assert.equal(res.statusCode, 201, res.body);
      const mediaId = String(res.headers['lightbox-media-id']);
      assert.match(mediaId, /^med_/);
      assert.equal(res.headers['upload-offset'], String(data.length));
      const media = (
        await call(ctx, 'GET', `/v1/listings/${listingId}/media/${mediaId}`, { key: owner.key })
      ).json<MediaJson>();
      assert.equal(media.filename, 'upload.pdf');
      assert.equal(media.kind, 'document');
      // A later HEAD names the media.
      const later = await head(ctx, owner.key, String(res.headers.location));
      assert.equal(later.statusCode, 200);
      assert.equal(later.headers['lightbox-media-id'], mediaId);
      assert.equal(later.headers['upload-offset'], String(data.length));
    });

    it('HEAD gives the offset; PATCH appends; creation and PATCH answers carry Upload-Expires', async () => {
      const listingId = await newGallery(ctx, owner);
      const data = mp4();
      const created = await call(ctx, 'POST', `/v1/listings/${listingId}/uploads`, {
        key: owner.key,
        headers: { ...TUS, 'upload-length': String(data.length) },
      });
      const expires = Date.parse(String(created.headers['upload-expires']));
      assert.ok(Math.abs(expires - (Date.now() + 24 * 3600_000)) < 60_000, String(created.headers['upload-expires']));
      const url = String(created.headers.location);
      assert.equal((await head(ctx, owner.key, url)).headers['upload-offset'], '0');
      const part = await patch(ctx, owner.key, url, 0, data.subarray(0, 10));
      assert.equal(part.statusCode, 204, part.body);
      assert.equal(part.headers['upload-offset'], '10');
      assert.ok(part.headers['upload-expires'] !== undefined);
      const h = await head(ctx, owner.key, url);
      assert.deepEqual(
        [h.headers['upload-offset'], h.headers['upload-length'], h.headers['tus-resumable']],
        ['10', String(data.length), '1.0.0'],
      );
      assert.equal(h.headers['lightbox-media-id'], undefined);
      const rest = await patch(ctx, owner.key, url, 10, data.subarray(10));
      assert.equal(rest.statusCode, 204, rest.body);
      assert.match(String(rest.headers['lightbox-media-id']), /^med_/);
    });

    it('a retried final PATCH makes exactly one media object', async () => {
      const listingId = await newGallery(ctx, owner);
      const data = pdf('twice');
      const url = await createUpload(ctx, owner.key, listingId, data.length);
      const first = await patch(ctx, owner.key, url, 0, data);
      assert.equal(first.statusCode, 204, first.body);
      // The client never saw the answer and sends the last chunk again: 409 (the offset moved on),
      // and HEAD then says the upload is complete, as the same media.
      const again = await patch(ctx, owner.key, url, 0, data);
      assert.equal(again.statusCode, 409, again.body);
      assert.equal(again.json<{ error: { code: string } }>().error.code, 'conflict');
      const empty = await patch(ctx, owner.key, url, data.length, Buffer.alloc(0));
      assert.equal(empty.statusCode, 204, empty.body);
      assert.equal(empty.headers['lightbox-media-id'], first.headers['lightbox-media-id']);
      assert.equal((await head(ctx, owner.key, url)).headers['lightbox-media-id'], first.headers['lightbox-media-id']);
      assert.equal((await mediaRows(ctx, listingId)).length, 1);
      // Completing again from the service is a no-op too.
      const uploadId = url.split('/').pop() ?? '';
      assert.equal(
        await ctx.services.uploads.complete(owner.accountId, listingId, uploadId),
        first.headers['lightbox-media-id'],
      );
      assert.equal((await mediaRows(ctx, listingId)).length, 1);
    });

    it('refusals: 412, 415, 409, 413 (nothing kept), 400 without Upload-Length', async () => {
      const listingId = await newGallery(ctx, owner);
      const url = await createUpload(ctx, owner.key, listingId, 100);
      const auth = { authorization: `Bearer ${owner.key}` };
      for (const version of [undefined, '0.2.2', '1.0']) {
        const res = await ctx.app.inject({
          method: 'PATCH',
          url,
          headers: {
            ...auth,
            ...(version === undefined ? {} : { 'tus-resumable': version }),
            'upload-offset': '0',
            'content-type': OCTETS,
          },
          payload: Buffer.alloc(5),
        });
        assert.equal(res.statusCode, 412, res.body);
        assert.equal(res.json<{ error: { code: string } }>().error.code, 'precondition_failed');
        assert.equal(res.headers['tus-version'], '1.0.0');
        assert.ok(res.headers['x-request-id'] !== undefined && res.headers['ratelimit-limit'] !== undefined);
        const created = await call(ctx, 'POST', `/v1/listings/${listingId}/uploads`, {
          key: owner.key,
          headers: { 'upload-length': '10', ...(version === undefined ? {} : { 'tus-resumable': version }) },
        });
        assert.equal(created.statusCode, 412);
        const h = await ctx.app.inject({
          method: 'HEAD',
          url,
          headers: { ...auth, ...(version === undefined ? {} : { 'tus-resumable': version }) },
        });
        assert.equal(h.statusCode, 412);
      }
      const wrongType = await ctx.app.inject({
        method: 'PATCH',
        url,
        headers: { ...auth, ...TUS, 'upload-offset': '0', 'content-type': 'application/octet-stream' },
        payload: Buffer.alloc(5),
      });
      assert.equal(wrongType.statusCode, 415, wrongType.body);
      assert.equal(wrongType.json<{ error: { code: string } }>().error.code, 'unsupported_media_type');
      const ahead = await patch(ctx, owner.key, url, 3, Buffer.alloc(5));
      assert.equal(ahead.statusCode, 409, ahead.body);
      assert.equal(
        ahead.json<{ error: { code: string; request_id: string } }>().error.request_id,
        ahead.headers['x-request-id'],
      );
      const tooMuch = await patch(ctx, owner.key, url, 0, Buffer.alloc(101, 1));
      assert.equal(tooMuch.statusCode, 413, tooMuch.body);
      assert.equal(tooMuch.json<{ error: { code: string } }>().error.code, 'payload_too_large');
      assert.equal((await head(ctx, owner.key, url)).headers['upload-offset'], '0');
      const ok = await patch(ctx, owner.key, url, 0, pdf().subarray(0, 60));
      assert.equal(ok.statusCode, 204);
      const past = await patch(ctx, owner.key, url, 60, Buffer.alloc(41, 1));
      assert.equal(past.statusCode, 413);
      assert.equal((await head(ctx, owner.key, url)).headers['upload-offset'], '60', 'none of a refused PATCH is kept');
      const noLength = await call(ctx, 'POST', `/v1/listings/${listingId}/uploads`, { key: owner.key, headers: TUS });
      assert.equal(noLength.statusCode, 400);
      const deferred = await call(ctx, 'POST', `/v1/listings/${listingId}/uploads`, {
        key: owner.key,
        headers: { ...TUS, 'upload-defer-length': '1' },
      });
      assert.equal(deferred.statusCode, 400);
    });

    it('an Upload-Length over the per-file limit is 413 before any byte; OPTIONS needs no key', async () => {
      const listingId = await newGallery(ctx, owner);
      const before = await uploadRows(ctx);
      const res = await call(ctx, 'POST', `/v1/listings/${listingId}/uploads`, {
        key: owner.key,
        headers: { ...TUS, 'upload-length': String(MAX_FILE_BYTES + 1) },
      });
      assert.equal(res.statusCode, 413, res.body);
      assert.equal(res.json<{ error: { code: string } }>().error.code, 'payload_too_large');
      assert.deepEqual(await uploadRows(ctx), before);
      const options = await fetch(`${base}/v1/listings/${listingId}/uploads`, { method: 'OPTIONS' });
      assert.equal(options.status, 204);
      assert.equal(options.headers.get('tus-version'), '1.0.0');
      assert.equal(options.headers.get('tus-extension'), 'creation,creation-with-upload,termination,expiration');
      assert.equal(options.headers.get('tus-max-size'), String(MAX_FILE_BYTES));
      assert.ok(options.headers.get('x-request-id') !== null && options.headers.get('ratelimit-limit') !== null);
    });

    it("another account's upload or gallery is 404; a read-only key may HEAD but not write (403)", async () => {
      const listingId = await newGallery(ctx, owner);
      const data = pdf('private');
      const url = await createUpload(ctx, owner.key, listingId, data.length);
      assert.equal((await patch(ctx, owner.key, url, 0, data.subarray(0, 10))).statusCode, 204);
      for (const res of [
        await head(ctx, other.key, url),
        await patch(ctx, other.key, url, 10, data.subarray(10)),
        await call(ctx, 'DELETE', url, { key: other.key, headers: TUS }),
        await call(ctx, 'POST', `/v1/listings/${listingId}/uploads`, {
          key: other.key,
          headers: { ...TUS, 'upload-length': '5' },
        }),
      ]) {
        assert.equal(res.statusCode, 404, res.body);
      }
      const { key: readOnly } = await createKey(ctx, owner.accountId, { scope: 'read_only' });
      assert.equal((await head(ctx, readOnly, url)).headers['upload-offset'], '10');
      assert.equal((await patch(ctx, readOnly, url, 10, data.subarray(10))).statusCode, 403);
      assert.equal((await call(ctx, 'DELETE', url, { key: readOnly, headers: TUS })).statusCode, 403);
      const create = await call(ctx, 'POST', `/v1/listings/${listingId}/uploads`, {
        key: readOnly,
        headers: { ...TUS, 'upload-length': '5' },
      });
      assert.equal(create.statusCode, 403);
      assert.equal((await head(ctx, owner.key, url)).headers['upload-offset'], '10');
    });

    it('a file that is not a photo, video or document is 415 at its last byte, and nothing is kept anywhere', async () => {
      const listingId = await newGallery(ctx, owner);
      const keysBefore = await storedKeys(ctx);
      const cleanupBefore = (await cleanupRows(ctx)).length;
      const data = Buffer.from('#!/bin/sh\necho this is a script, not a photo\n'.repeat(200));
      const url = await createUpload(ctx, owner.key, listingId, data.length);
      assert.equal((await patch(ctx, owner.key, url, 0, data.subarray(0, 100))).statusCode, 204);
      const last = await patch(ctx, owner.key, url, 100, data.subarray(100));
      assert.equal(last.statusCode, 415, last.body);
      assert.equal(last.json<{ error: { code: string } }>().error.code, 'unsupported_media_type');
      assert.deepEqual(await storedKeys(ctx), keysBefore);
      assert.equal((await cleanupRows(ctx)).length, cleanupBefore);
      assert.equal((await mediaRows(ctx, listingId)).length, 0);
      assert.equal((await uploadRows(ctx)).filter((u) => url.endsWith(u.id)).length, 0);
      assert.equal((await head(ctx, owner.key, url)).statusCode, 404);
      await assertNoMultipartUploads();
    });

    it('DELETE abandons an unfinished upload (204, bytes gone, then 404); a completed one is media (409)', async () => {
      const listingId = await newGallery(ctx, owner);
      const keysBefore = await storedKeys(ctx);
      const data = mp4();
      const url = await createUpload(ctx, owner.key, listingId, data.length);
      assert.equal((await patch(ctx, owner.key, url, 0, data.subarray(0, 20))).statusCode, 204);
      const del = await call(ctx, 'DELETE', url, { key: owner.key, headers: TUS });
      assert.equal(del.statusCode, 204, del.body);
      assert.equal((await head(ctx, owner.key, url)).statusCode, 404);
      assert.equal((await patch(ctx, owner.key, url, 20, data.subarray(20))).statusCode, 404);
      assert.deepEqual(await storedKeys(ctx), keysBefore);
      assert.ok(!(await cleanupRows(ctx)).some((c) => url.endsWith(c.storage_key.split('/').pop() ?? '-')));
      await assertNoMultipartUploads();
      const done = await createUpload(ctx, owner.key, listingId, data.length);
      assert.equal((await patch(ctx, owner.key, done, 0, data)).statusCode, 204);
      assert.equal((await call(ctx, 'DELETE', done, { key: owner.key, headers: TUS })).statusCode, 409);
    });

    it('an unfinished upload expires: 404, and the expiry job removes its bytes', async () => {
      const short = await createTestContext({ ...storage?.env('tus-expiry'), UPLOAD_EXPIRY_HOURS: '0.0004' });
      try {
        const account = await createAccount(short);
        const listingId = await newGallery(short, account);
        const data = mp4();
        const url = await createUpload(short, account.key, listingId, data.length);
        assert.equal((await patch(short, account.key, url, 0, data.subarray(0, 30))).statusCode, 204);
        assert.equal((await storedKeys(short)).length, name === 'S3' ? 0 : 1);
        await new Promise((resolve) => setTimeout(resolve, 1600));
        assert.equal((await patch(short, account.key, url, 30, data.subarray(30))).statusCode, 404);
        assert.equal((await head(short, account.key, url)).statusCode, 404);
        await runExpiryJobs(short);
        assert.deepEqual(await storedKeys(short), []);
        assert.deepEqual(await uploadRows(short), []);
        assert.deepEqual(await cleanupRows(short), []);
        await assertNoMultipartUploads(short);
        // A completed upload keeps its bytes when its records expire.
        const done = await createUpload(short, account.key, listingId, data.length);
        const finished = await patch(short, account.key, done, 0, data);
        assert.equal(finished.statusCode, 204);
        await new Promise((resolve) => setTimeout(resolve, 1600));
        await runExpiryJobs(short);
        assert.deepEqual(await uploadRows(short), []);
        const media = await call(
          short,
          'GET',
          `/v1/listings/${listingId}/media/${String(finished.headers['lightbox-media-id'])}/content`,
          { key: account.key },
        );
        assert.ok(media.rawPayload.equals(data));
      } finally {
        await short.close();
      }
    });

    it("deleting the gallery removes its unfinished uploads' bytes", async () => {
      const listingId = await newGallery(ctx, owner);
      const keysBefore = await storedKeys(ctx);
      const data = mp4();
      const url = await createUpload(ctx, owner.key, listingId, data.length);
      assert.equal((await patch(ctx, owner.key, url, 0, data.subarray(0, 40))).statusCode, 204);
      assert.equal((await call(ctx, 'DELETE', `/v1/listings/${listingId}`, { key: owner.key })).statusCode, 204);
      assert.equal((await head(ctx, owner.key, url)).statusCode, 404);
      await runExpiryJobs(ctx);
      assert.deepEqual(await storedKeys(ctx), keysBefore);
      assert.equal((await uploadRows(ctx)).filter((u) => u.listing_id === listingId).length, 0);
      assert.ok(!(await cleanupRows(ctx)).some((c) => c.storage_key.includes(listingId)));
      await assertNoMultipartUploads();
    });

    /** On S3: no multipart upload left in the bucket (parts of a removed upload are aborted). */
    async function assertNoMultipartUploads(on: TestContext = ctx): Promise<void> {
      const config = on.config.media.storage;
      if (config.kind !== 's3') return;
      const { S3Client, ListMultipartUploadsCommand } = await import('@aws-sdk/client-s3');
      const client = new S3Client({
        region: config.region,
        forcePathStyle: config.forcePathStyle,
        ...(config.endpoint === undefined ? {} : { endpoint: config.endpoint }),
        ...(config.credentials === undefined ? {} : { credentials: config.credentials }),
      });
      try {
        const list = await client.send(
          new ListMultipartUploadsCommand({ Bucket: config.bucket, Prefix: config.prefix }),
        );
        assert.deepEqual(list.Uploads ?? [], []);
      } catch (err) {
        // s3rver has neither ListMultipartUploads nor AbortMultipartUpload: nothing to check there.
        if (!['MethodNotAllowed', 'NotImplemented'].includes((err as Error).name)) throw err;
      } finally {
        client.destroy();
      }
    }
  });
}

/**
 * The upload a studio's walkthrough video makes: 1 GiB in 8 MiB chunks through a connection cut at
 * five random points. Its own suite (uploads.large.test.ts), out of `npm run test:quick` and run on
 * one dialect: it streams bytes and touches the database only to set up.
 */
export function describeLargeTusUpload(name: string, start: () => Promise<StorageUnderTest | string>): void {
  describe(`a 1 GiB resumable upload on ${name} storage`, () => {
    let storage: StorageUnderTest | undefined;
    let skip: string | undefined;
    before(async () => {
      const started = await start();
      if (typeof started === 'string') skip = started;
      else storage = started;
    });
    after(() => storage?.stop());
    const skippable = skippableTest(() => skip);

    skippable(
      '1 GiB in 8 MiB chunks with tus-js-client through a connection cut at 5 random points: sha256 matches',
      async () => {
        const big = await createTestContext({ ...storage?.env('tus-big') });
        const dir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-tus-'));
        try {
          const account = await createAccount(big);
          const listingId = await newGallery(big, account);
          const port = Number(new URL(await big.app.listen({ port: 0, host: '127.0.0.1' })).port);
          const size = 1024 * MIB;
          const file = path.join(dir, 'walkthrough.mp4');
          const digest = await writeTestFile(file, mp4(), size);
          const cuts = Array.from({ length: 5 }, () => Math.floor(Math.random() * size));
          const proxy = await cuttingProxy(port, cuts);
          try {
            const mediaId = await tusUpload(createReadStream(file), {
              endpoint: `http://127.0.0.1:${proxy.port}/v1/listings/${listingId}/uploads`,
              key: account.key,
              size,
              filename: 'walkthrough.mp4',
            });
            assert.equal(proxy.cut(), 5, 'every cut happened');
            const media = (
              await call(big, 'GET', `/v1/listings/${listingId}/media/${mediaId}`, { key: account.key })
            ).json<MediaJson>();
            assert.equal(media.size, size);
            assert.equal(media.sha256, digest);
            assert.equal(media.kind, 'video');
            assert.equal(await servedSha256(`http://127.0.0.1:${port}`, account.key, media), digest);
            assert.equal((await mediaRows(big, listingId)).length, 1);
          } finally {
            await proxy.close();
          }
        } finally {
          await big.close();
          await rm(dir, { recursive: true, force: true });
        }
      },
      { timeout: 600_000 },
    );
  });
}
