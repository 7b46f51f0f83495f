// `npm run bench:upload`: upload throughput and server memory of POST /v1/listings/:id/media and
// of a tus resumable upload in 8 MiB PATCHes (docs/api.md §16), against a bare node:http handler that only streams the request body to a file with SHA-256.
//
// Both servers run as child processes on 127.0.0.1 and are measured the same way: wall time
// from the first body byte sent to the response received (MB/s, decimal: 1 MB = 1e6 bytes), and
// VmRSS sampled from /proc/<pid>/status during the upload (plus VmHWM, reset before each upload
// through /proc/<pid>/clear_refs where the kernel allows it). The body is generated on the fly
// from two preallocated chunks (never materialised), sent with a fixed Content-Length, and its
// SHA-256 is computed beforehand from the same generator and compared with the server's answer.
//
// The parts live in packages/bench/src/lib/: upload-options (flags), upload-body (the generated body),
// upload-bare (the baseline server), upload-paths (each way of uploading, measured alike),
// upload-measure (one round, medians), upload-report (tables, verdicts, files), proc-stats (/proc).
//
//   node packages/bench/src/upload.ts [--size 1GiB] [--rounds 3] [--storage local|s3] [--profile] ...
//   node packages/bench/src/upload.ts --help
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { childPids, idleRss, procCmdline } from './lib/proc-stats.ts';
import { accountWithKey, call, cleanup, onCleanup, ROOT, startServe, startUploadBare } from './lib/procs.ts';
import { fixed } from './lib/report.ts';
import { expectedDigests, makeBody, makeFiller } from './lib/upload-body.ts';
import { measure, roundLine, type Round } from './lib/upload-measure.ts';
import { GiB, HELP, KiB, MB, parseOptions, UsageError, type Options } from './lib/upload-options.ts';
import { barePath, multipartPath, tusPath, type UploadPath } from './lib/upload-paths.ts';
import { report, RESULTS_DIR } from './lib/upload-report.ts';

const S3_SERVER = path.join(ROOT, 'test', 'support', 's3-server.ts');

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function run(options: Options): Promise<void> {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const work = await tempDir('lightbox-bench-');
  const profileDir = options.profile ? path.join(RESULTS_DIR, `upload-profile-${stamp}`) : undefined;
  if (profileDir !== undefined) await mkdir(profileDir, { recursive: true });
  const loadBefore = os.loadavg();

  const nodeFlags = (name: string): string[] => [
    ...options.nodeFlags,
    ...(profileDir === undefined
      ? []
      : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${name}.cpuprofile`]),
  ];

  // The bodies, and what their digests must be.
  const fillerBytes = makeFiller(options.chunkSize);
  const boundary = `lightbox-bench-${randomBytes(16).toString('hex')}`;
  const body = makeBody(options.size, fillerBytes, boundary);
  const warmup = options.warmup === 0 ? undefined : makeBody(options.warmup, fillerBytes, boundary);
  let t = performance.now();
  const digests = expectedDigests(body);
  const warmupDigests = warmup === undefined ? undefined : expectedDigests(warmup);
  console.log(
    `body: ${options.size} file bytes (${fixed(options.size / MB)} MB) in ${fixed(options.chunkSize / KiB, 0)} KiB chunks; ` +
      `file sha256 ${digests.file.slice(0, 16)}… (hashed in ${fixed((performance.now() - t) / 1000, 2)} s, untimed)`,
  );

  // Storage.
  let storageEnv: Record<string, string> = {};
  let s3rverPid: number | undefined;
  if (options.storage === 's3') {
    // Loaded only here: a local run needs neither s3rver nor the test folder.
    if (!existsSync(S3_SERVER))
      throw new Error(`--storage s3 needs ${path.relative(ROOT, S3_SERVER)}, which is missing`);
    const { startS3Server } = (await import(
      pathToFileURL(S3_SERVER).href
    )) as typeof import('../../../test/support/s3-server.ts');
    const s3 = await startS3Server({ prefix: 'bench' });
    onCleanup(() => s3.stop());
    storageEnv = s3.env;
    s3rverPid = childPids().find((pid) => procCmdline(pid).includes(path.basename(S3_SERVER)));
    console.log(`s3rver (pid ${s3rverPid ?? 'not found'}) at ${s3.endpoint}, bucket ${s3.bucket}`);
  }

  // lightbox: account and key from the CLI, then `serve` with its log in a file.
  const dataDir = path.join(work, 'data');
  await mkdir(dataDir);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? work,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    ...storageEnv,
    ...(options.size > 2 * GiB ? { MEDIA_MAX_FILE_BYTES: String(options.size) } : {}),
  };
  t = performance.now();
  const key = await accountWithKey(env, 'Bench Studio');
  const logFile = path.join(work, 'lightbox.log');
  const lightbox = await startServe(env, logFile, nodeFlags('lightbox'));
  const gallery = await call(lightbox.port, 'POST', '/v1/listings', key, { address: '1 Benchmark Road' });
  if (gallery.status !== 201) throw new Error(`creating the gallery: ${gallery.status} ${gallery.text}`);
  const galleryId = (JSON.parse(gallery.text) as { id: string }).id;
  console.log(
    `lightbox serve (pid ${lightbox.child.pid}, ${options.storage} storage) ready on port ${lightbox.port} in ${fixed((performance.now() - t) / 1000, 2)} s`,
  );

  const bareDir = path.join(work, 'bare');
  await mkdir(bareDir);
  const bareLog = path.join(work, 'bare.log');
  const bare = await startUploadBare(bareDir, nodeFlags('bare'), bareLog);
  console.log(`bare server (pid ${bare.child.pid}) ready on port ${bare.port}`);

  // The measured paths, the baseline first: each is sent the same body, interleaved round by round.
  const target = {
    pid: lightbox.child.pid,
    port: lightbox.port,
    logFile,
    key,
    galleryId,
    storageLabel: options.storage === 's3' ? 's3rver' : 'local disk',
    ...(s3rverPid === undefined ? {} : { helperPid: s3rverPid }),
  };
  const paths: UploadPath[] = [
    barePath({ pid: bare.child.pid, port: bare.port }),
    multipartPath(target),
    tusPath(target),
  ];

  // Unmeasured warm-up: JIT, lazily loaded modules, first-use allocations.
  if (warmup !== undefined && warmupDigests !== undefined) {
    for (const target of paths) await target.verify(await target.send(warmup), warmup, warmupDigests);
    console.log(`warm-up: one ${fixed(options.warmup / MB)} MB upload to each server`);
  }
  const baseIdle: Record<string, number> = {};
  for (const target of paths) baseIdle[target.side] = await idleRss(target.pid);

  const rounds: Round[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    // Interleaved, alternating the order, so slow drift on the machine hits every path alike.
    const order = round % 2 === 1 ? paths : paths.toReversed();
    for (const target of order) {
      const result = await measure(target, round, body, digests, options.sampleMs);
      rounds.push(result);
      console.log(roundLine(result));
    }
  }

  await lightbox.child.stop();
  await bare.child.stop();
  const logLines = (await readFile(logFile, 'utf8')).split('\n').filter((l) => l !== '').length;
  await report({ options, paths, rounds, baseIdle, stamp, loadBefore, profileDir, logFile, logLines, bareLog });
}

async function main(argv: string[]): Promise<number> {
  let options: Options | undefined;
  try {
    options = parseOptions(argv);
  } catch (err) {
    if (!(err instanceof UsageError) && !(err instanceof TypeError)) throw err;
    process.stderr.write(`bench-upload: ${err.message}\n\n${HELP}`);
    return 2;
  }
  if (options === undefined) {
    process.stdout.write(HELP);
    return 0;
  }
  if (process.platform !== 'linux') {
    process.stderr.write('bench-upload: needs Linux (/proc) to measure memory\n');
    return 2;
  }

  const deadline = setTimeout(() => {
    process.stderr.write(`bench-upload: aborted after ${options.timeoutMs / 1000} s; cleaning up\n`);
    void cleanup().finally(() => process.exit(3));
  }, options.timeoutMs);
  deadline.unref();
  const crash = (err: unknown): void => {
    process.stderr.write(`bench-upload crashed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    void cleanup().finally(() => process.exit(1));
  };
  process.once('uncaughtException', crash);
  process.once('unhandledRejection', crash);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      process.stderr.write(`bench-upload: ${signal}; cleaning up\n`);
      void cleanup().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
    });
  }
  try {
    await run(options);
    return 0;
  } catch (err) {
    process.stderr.write(`bench-upload failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 1;
  } finally {
    clearTimeout(deadline);
    await cleanup();
  }
}

process.exitCode = await main(process.argv.slice(2));
