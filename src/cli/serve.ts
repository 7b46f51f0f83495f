// `lightbox serve`, `lightbox worker` and `lightbox migrate`.
import { loadConfig } from '../config.ts';
import { EXIT_OK, parseCommandArgs, withDatabase, type Command } from './command.ts';

export const serveCommand: Command = {
  name: 'serve',
  summary: 'Start the HTTP service (brings the database schema up to date first)',
  help: `Usage: lightbox serve

Starts the HTTP service: brings the database schema up to date, then listens on
HOST:PORT. Logs are JSON lines on stdout. SIGTERM or SIGINT stops accepting
connections, finishes the requests in flight, and exits with status 0.

Configuration comes from environment variables: PORT (3000), HOST (127.0.0.1),
DATA_DIR (./data), DATABASE_URL (a SQLite file in DATA_DIR; postgres://... selects
PostgreSQL), PUBLIC_URL (http://HOST:PORT), LOG_LEVEL (info). A bad value stops the
command with one line naming the variable and exit status 1. With SMTP_URL set (real
email), PUBLIC_URL must be set to an address clients open and MAIL_FROM must not be
at localhost (MAIL_ALLOW_LOCAL=true allows both, for a local mail catcher).
`,
  async run(args, io) {
    parseCommandArgs(args);
    const config = loadConfig(io.env, { start: true });
    // Loaded here, not at the top: the other commands need not pay for the HTTP stack.
    const { serve } = await import('../server.ts');
    // Resolves once listening; the process then lives until a signal stops the server.
    await serve(config);
    return EXIT_OK;
  },
};

export const workerCommand: Command = {
  name: 'worker',
  summary: 'Run the background jobs only, without HTTP (beside API nodes started with JOBS=false)',
  help: `Usage: lightbox worker

Runs the background jobs that \`lightbox serve\` runs (webhook deliveries, emails,
photo variants and checksums, media cleanup, pruning) and nothing else: no HTTP.
Brings the database schema up to date first. Any number of workers and API nodes
may share one database: every job is claimed under a lease, so each runs once.

A deployment that wants its API nodes' event loop for requests alone starts them
with JOBS=false and runs one or more \`lightbox worker\` beside them. SIGTERM or
SIGINT stops claiming, waits (at most 10 s) for the jobs in flight, and exits 0;
unfinished jobs stay queued. Logs are JSON lines on stdout.

Uses DATA_DIR, DATABASE_URL and the other settings like \`lightbox serve\`.
`,
  async run(args, io) {
    parseCommandArgs(args);
    const config = loadConfig(io.env, { start: true });
    const { work } = await import('../worker.ts');
    // Resolves once the jobs run; the process then lives until a signal stops it.
    await work(config);
    return EXIT_OK;
  },
};

export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'Bring the database schema up to date',
  help: `Usage: lightbox migrate

Applies every migration the database has not seen yet, and names each one on
stderr. Safe to run while other nodes run: migrations take a lock. \`lightbox
serve\` does the same at start, so this is for deploy scripts that migrate first.

Uses DATA_DIR and DATABASE_URL like \`lightbox serve\`.
`,
  async run(args, io) {
    parseCommandArgs(args);
    const applied = await withDatabase(io, (context) => Promise.resolve(context.applied));
    io.stderr.write(
      applied.length === 0
        ? 'the database schema was already up to date\n'
        : `the database schema is up to date (${applied.length} applied)\n`,
    );
    return EXIT_OK;
  },
};
