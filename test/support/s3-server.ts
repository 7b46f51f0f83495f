// A throwaway S3-compatible server (s3rver) for tests: fresh directory, fresh bucket, random port.
// It runs in a child process (this same file, run directly) so that its work neither shares the
// test's event loop nor counts in the test's memory measurements; the child exits on its own
// when its parent goes away (its stdin closes).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { S3StorageOptions } from '../../src/storage/s3.ts';

export interface TestS3Server {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  bucket: string;
  /** Options for createS3Storage, with `prefix` as requested. */
  options: S3StorageOptions;
  /** The same server as environment variables for loadConfig (MEDIA_STORAGE, S3_*, AWS_*). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

const SELF = fileURLToPath(import.meta.url);
const REGION = 'us-east-1';
// s3rver accepts any well-formed signature made with these.
const ACCESS_KEY = 'S3RVER';
const SECRET_KEY = 'S3RVER';

export async function startS3Server(settings: { prefix?: string } = {}): Promise<TestS3Server> {
  const prefix = settings.prefix ?? 'media';
  const bucket = `lightbox-test-${randomBytes(6).toString('hex')}`;
  const directory = await mkdtemp(path.join(os.tmpdir(), 'lightbox-s3rver-'));
  // s3rver signs ListObjectsV2 continuation tokens with DES, which OpenSSL 3 keeps in its legacy
  // provider: without it every second page of a listing is a 500.
  const child = spawn(process.execPath, ['--openssl-legacy-provider', SELF, directory, bucket], {
    stdio: ['pipe', 'pipe', 'inherit'],
    // Under `node --test` this is set; the child is a plain server, not a test file.
    env: { ...process.env, NODE_TEST_CONTEXT: undefined },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  let port: number;
  try {
    port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('s3rver did not start within 15 s')), 15_000);
      const lines = createInterface({ input: child.stdout });
      lines.once('line', (line) => {
        clearTimeout(timer);
        const parsed = JSON.parse(line) as { port?: unknown };
        if (typeof parsed.port === 'number') resolve(parsed.port);
        else reject(new Error(`s3rver said ${line}`));
      });
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`s3rver exited with code ${code}`));
      });
    });
  } catch (err) {
    child.kill('SIGKILL');
    await rm(directory, { recursive: true, force: true });
    throw err;
  }

  // A test file that forgets stop() still exits (and the child then follows it).
  child.unref();
  for (const pipe of [child.stdin, child.stdout]) if (pipe instanceof Socket) pipe.unref();

  const endpoint = `http://127.0.0.1:${port}`;
  let stopped: Promise<void> | undefined;
  return {
    endpoint,
    bucket,
    options: {
      bucket,
      prefix,
      endpoint,
      region: REGION,
      forcePathStyle: true,
      credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY },
    },
    env: {
      MEDIA_STORAGE: prefix === '' ? `s3://${bucket}` : `s3://${bucket}/${prefix}`,
      S3_ENDPOINT: endpoint,
      S3_REGION: REGION,
      S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: ACCESS_KEY,
      AWS_SECRET_ACCESS_KEY: SECRET_KEY,
    },
    stop() {
      stopped ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          child.stdin.end();
          const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
          await exited;
          clearTimeout(timer);
        }
        await rm(directory, { recursive: true, force: true });
      })();
      return stopped;
    },
  };
}

interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance;

interface StoredObject {
  size: number;
  content?: Readable;
  range?: { start: number; end: number };
}
interface FilesystemStore {
  getObject: (
    this: FilesystemStore,
    bucket: string,
    key: string,
    options?: { start?: number; end?: number },
  ) => Promise<StoredObject | null>;
  getResourcePath(bucket: string, key: string, resource: string): string;
}

/**
 * s3rver 3.7 reads `Range: bytes=0-0` as `bytes=0-` (its `end || Infinity`), so a request for the
 * first byte gets the whole object. Real S3 sends one byte; so does this server once patched.
 */
function fixFirstByteRange(store: { prototype: FilesystemStore }): void {
  const original = store.prototype.getObject;
  store.prototype.getObject = async function getObject(bucket, key, options) {
    const object = await original.call(this, bucket, key, options);
    if (object?.content !== undefined && options?.start === 0 && options.end === 0 && object.size > 0) {
      object.content.destroy();
      object.content = createReadStream(this.getResourcePath(bucket, key, 'object'), { start: 0, end: 0 });
      object.range = { start: 0, end: 0 };
    }
    return object;
  };
}

/** The child: `node test/support/s3-server.ts <directory> <bucket>`. */
async function serve(directory: string, bucket: string): Promise<void> {
  const require = createRequire(import.meta.url);
  fixFirstByteRange(require('s3rver/lib/stores/filesystem') as { prototype: FilesystemStore });
  const S3rver = require('s3rver') as S3rverClass;
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = await server.run();
  process.stdout.write(`${JSON.stringify({ port })}\n`);
  process.stdin.resume();
  process.stdin.once('close', () => {
    void server.close().finally(() => process.exit(0));
    // Keep-alive connections could hold close() open; never outlive the parent for long.
    setTimeout(() => process.exit(0), 1_000).unref();
  });
}

if (process.argv[1] === SELF) {
  const [directory, bucket] = process.argv.slice(2);
  if (directory === undefined || bucket === undefined) throw new Error('usage: s3-server.ts <directory> <bucket>');
  await serve(directory, bucket);
}
