// Which test files make which suite, and how they run: `npm test` (every file, on the database
// DATABASE_URL names, SQLite by default), `npm run test:quick` (every module's own tests: the
// loop while working), `npm run test:second-dialect` (the suites whose SQL differs, run again on
// PostgreSQL by `./run test`). `--list` prints the files instead of running them; arguments after
// `--` go to `node --test` (e.g. `-- --test-name-pattern=cursor`).
//
// Every file runs in a process of its own, as `node --test` runs them, with the compile cache on
// (each process would otherwise strip and compile the same few hundred TypeScript modules again).
// More files run at once than there are cores: many tests wait on sockets, child processes and
// timers, and on a 2-core machine two at a time left a core idle for much of the run.
import { spawn } from 'node:child_process';
import { globSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

const EVERY_FILE = [
  'src/**/*.test.ts',
  'test/**/*.test.ts',
  'packages/client/src/**/*.test.ts',
  'packages/bench/**/*.test.ts',
];

/**
 * Left out of `test:quick`: suites that drive browsers, stream gigabytes, start and kill real
 * server processes, or check the machine's tools (the deployment files, the README's commands).
 * Each runs in `npm test`.
 */
const NOT_QUICK = [
  'test/**', // cross-cutting and process suites: browsers, crashes, two nodes, deploy, README
  'src/gallery/zip64*.test.ts', // archives past 4 GiB
  'src/modules/uploads/uploads.large.test.ts', // 1 GiB through a connection cut five times
  'packages/bench/**',
];

/**
 * Suites whose SQL is the same on both dialects, so the second pass (PostgreSQL) leaves them out.
 * A suite belongs here when every query it reaches is reached by a module suite that does run on
 * both: pages and forms call the same services as the API, and these others test bytes, headers,
 * processes or text. A new suite runs on both dialects until it is named here.
 */
const FIRST_DIALECT_ONLY = [
  'test/e2e/**', // browsers: what a page looks like
  'packages/client/**', // the TypeScript client, against a server whose SQL is tested below
  'src/dashboard/**', // pages over the services' queries
  'src/gallery/**', // pages and archives over the services' queries
  'src/property/**',
  'src/public/**', // the tours as the pages show them; their queries are the listings service's
  'src/lib/**',
  'src/mail/**',
  'src/storage/**',
  'src/outbound/**',
  'src/config.test.ts',
  'src/cli/cli.test.ts', // argument parsing and exit codes; its commands' SQL is the services'
  'src/cli/accounts.test.ts',
  'src/http/rate-limit*.test.ts', // in memory or in Redis
  'src/modules/accounts/totp.test.ts',
  'src/modules/webhooks/webhooks.signing.test.ts',
  'src/modules/analysis/analysis.models.test.ts', // the models, in a process of their own
  'src/modules/analysis/analysis.rooms.test.ts',
  // Pixels, models, ffmpeg, fonts and arithmetic: no database reached.
  'src/modules/analysis/analysis.config.test.ts',
  'src/modules/analysis/analysis.models.thread.test.ts',
  'src/modules/analysis/analysis.order.test.ts',
  'src/modules/analysis/analysis.pixels.test.ts',
  'src/modules/kit/kit.mls.test.ts',
  'src/modules/kit/kit.social.test.ts',
  'src/modules/kit/kit.teaser.test.ts',
  'src/modules/kit/kit.video.test.ts',
  'src/modules/variants/variants.images.test.ts',
  'src/modules/variants/variants.staging.test.ts',
  'src/modules/money/money.test.ts',
  'src/modules/listings/tours.test.ts',
  'packages/bench/**',
  'test/repository-scope.test.ts', // reads the source, no database
  'src/modules/webhooks/webhooks.sender*.test.ts', // the HTTP client and its address checks
  'src/modules/webhooks/webhooks.ssrf.test.ts',
  'src/modules/uploads/uploads.s3.test.ts', // S3's side of tus; the uploads' SQL runs in uploads.local
  'src/modules/uploads/uploads.large.test.ts',
  'src/modules/media/media.s3.test.ts',
  'test/readme*.test.ts',
  'test/citations.test.ts',
  'test/import-graph.test.ts',
  'test/one-door.lint.test.ts', // lint rules, no database
  'test/deploy.test.ts',
  'test/run.test.ts',
  'test/node-version.test.ts',
  'test/signals.test.ts',
  'test/fuzz*.test.ts', // input validation, before any query
  'test/http*.test.ts',
  'test/protection.test.ts',
  'test/below-the-app.test.ts',
  'test/slow-clients.test.ts',
  'test/variants-crash.test.ts', // the queue's claims and leases run on both in mechanisms/queue
];

const SUITES: Record<string, { about: string; files: () => string[] }> = {
  all: { about: 'every test file', files: () => files(EVERY_FILE) },
  quick: {
    about: "every module's own tests (no browsers, ZIP64, processes or deploy checks)",
    files: () => files(EVERY_FILE, NOT_QUICK),
  },
  'second-dialect': {
    about: 'the suites whose SQL differs between SQLite and PostgreSQL',
    files: () => files(EVERY_FILE, FIRST_DIALECT_ONLY),
  },
};

function files(include: string[], exclude: string[] = []): string[] {
  const out = new Set<string>();
  for (const pattern of include) for (const file of globSync(pattern, { cwd: root })) out.add(file);
  const left = [...out].filter((file) => !exclude.some((pattern) => path.matchesGlob(file, pattern)));
  return left.sort();
}

const USAGE = `usage: node scripts/test-suites.ts SUITE [--list] [FILE...] [--test-OPTION...]
suites:
${Object.entries(SUITES)
  .map(([name, suite]) => `  ${name.padEnd(15)} ${suite.about}`)
  .join('\n')}
environment: DATABASE_URL=postgres://... runs the suite on PostgreSQL (SQLite by default);
TEST_CONCURRENCY overrides how many files run at once (default: the cores plus one).`;

function main(argv: string[]): void {
  if (argv.includes('-h') || argv.includes('--help')) {
    console.log(USAGE);
    return;
  }
  const [name, ...rest] = argv;
  const suite = name === undefined ? undefined : SUITES[name];
  if (suite === undefined) {
    console.error(`${name === undefined ? 'name a suite' : `unknown suite ${name}`}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  // `--list` is ours; other options go to `node --test`; paths pick files of the suite.
  const options = rest.filter((arg) => arg.startsWith('-') && arg !== '--list' && arg !== '--');
  const picked = rest.filter((arg) => !arg.startsWith('-')).map((arg) => path.relative(root, path.resolve(arg)));
  const inSuite = suite.files();
  const outside = picked.filter((file) => !inSuite.includes(file));
  if (outside.length > 0) {
    console.error(`not a test file of the ${name} suite: ${outside.join(', ')}`);
    process.exitCode = 2;
    return;
  }
  const list = picked.length > 0 ? picked : inSuite;
  if (rest.includes('--list')) {
    console.log(list.join('\n'));
    return;
  }
  const concurrency = Number(process.env.TEST_CONCURRENCY ?? os.availableParallelism() + 1);
  const child = spawn(
    process.execPath,
    ['--test', `--test-concurrency=${concurrency}`, '--test-timeout=120000', ...options, ...list],
    {
      cwd: root,
      stdio: 'inherit',
      env: {
        ...process.env,
        NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? path.join(os.tmpdir(), 'lightbox-compile-cache'),
      },
    },
  );
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal === null ? 1 : 128 + os.constants.signals[signal]);
  });
}

main(process.argv.slice(2));
