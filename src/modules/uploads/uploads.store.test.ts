// The digest tap of a resumable upload's body (uploads.store.ts): a client that hangs up
// before the store reads the body (on S3 the store first awaits the upload's metadata and its
// incomplete part) must not leave an unhandled 'error' behind, which would end the process
// (node:test reports it as this test's failure); the store still sees the error when it reads.
// Found as a rare failure of the 1 GiB cut-connection case on S3.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { setImmediate as tick } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { UploadDigests } from './uploads.store.ts';

describe('the digest tap of a resumable upload', () => {
  test('a body that fails before anyone reads it: nothing unhandled, and the reader gets the error', async () => {
    const digests = new UploadDigests();
    const body = new PassThrough();
    const tracked = digests.track('upl_x', 0, body);
    const aborted = Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
    body.destroy(aborted);
    // Let the error events run before anyone listens to the tap.
    for (let i = 0; i < 5; i += 1) await tick();
    await assert.rejects(tracked.body.toArray(), /aborted/);
    tracked.done(undefined);
  });

  test('a body read to its end is hashed and passed on whole', async () => {
    const digests = new UploadDigests();
    const body = new PassThrough();
    const tracked = digests.track('upl_y', 0, body);
    body.end(Buffer.from('hello'));
    const parts: Buffer[] = [];
    for await (const chunk of tracked.body) parts.push(chunk as Buffer);
    assert.equal(Buffer.concat(parts).toString(), 'hello');
    tracked.done(5);
  });
});
