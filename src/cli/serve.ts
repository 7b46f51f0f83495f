// `lightbox serve` and `lightbox migrate`.
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
command with one line naming the variable and exit status 1.
`,
  async run(args, io) {
    parseCommandArgs(args);
    const config = loadConfig(io.env);
    // Loaded here, not at the top: the other commands need not pay for the HTTP stack.
    const { serve } = await import('../server.ts');
    // Resolves once listening; the process then lives until a signal stops the server.
    await serve(config);
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
