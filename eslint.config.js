// @ts-check
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * The transactions that stay outside the unit of work, and why. Each is a batch of the operator's
 * or of a runner's across accounts, where no single account's write is the unit; none records an
 * account's event or changes its counts except through the unit of work.
 */
const ONE_DOOR_ALLOWLIST = {
  // The event log's fan-out: a batch of events of every account becomes deliveries and their
  // jobs in one short transaction (decisions/0015); it is the event log's own consequence.
  'src/modules/webhooks/webhooks.fanout.ts': 'fan-out of events across accounts',
  // The delivery runner's outcomes, a batch of many accounts' attempts in one transaction.
  'src/modules/webhooks/webhooks.outcomes.ts': 'delivery outcomes across accounts',
  // The 30-day event pruner: one batch across accounts; each account's counts go through
  // `writes.within` inside it.
  'src/modules/webhooks/webhooks.prune.ts': 'event pruning across accounts',
};

/** What the unit of work alone does: open a transaction, queue a job, make a job due now. */
const ONE_DOOR = [
  {
    selector: "CallExpression[callee.property.name='transaction']",
    message:
      'A change goes through writes.run (src/mechanisms/writes/writes.ts); reads in one snapshot through writes.snapshot. A transaction outside it is named in ONE_DOOR_ALLOWLIST (eslint.config.js) with its reason.',
  },
  {
    selector:
      'ImportDeclaration[source.value=/mechanisms\\/queue\\/queue\\.ts$/] > ImportSpecifier[imported.name=/^(enqueue|runJobNow)$/]',
    message: 'Jobs are queued in the write that wants them: w.enqueue(...) and w.runNow(...).',
  },
];

/**
 * A change outside a transaction: a statement that writes, run on the pool (`db.kysely`) rather than
 * a write's `w.trx`. It records no event, takes no lock and changes no count, so it goes through
 * writes.run like any other change; the sign-in machinery's own records (sessions, failed sign-ins,
 * reset tokens, two-factor challenges), which are no account's data, are named in
 * POOL_WRITE_ALLOWLIST.
 */
const POOL_WRITE = {
  selector:
    "CallExpression[callee.property.name=/^(insert|update|upsert|delete|remove|set|clear|touch|mark|bump|add|save|record)[A-Z]/][arguments.0.type='MemberExpression'][arguments.0.object.name='db'][arguments.0.property.name='kysely']",
  message:
    'A change goes through writes.run (src/mechanisms/writes/writes.ts) and its w.trx, not the pool. A file whose records are no account data is named in POOL_WRITE_ALLOWLIST (eslint.config.js) with its reason.',
};

const POOL_WRITE_ALLOWLIST = {
  // A session row per signed-in browser, touched at most once a minute per request: taking the
  // account's write for it would serialise every page view of a studio.
  'src/modules/accounts/sessions.service.ts': 'sessions: the sign-in machinery, not account data',
  // Failed sign-ins, counted per address and per account before any account is known.
  'src/modules/accounts/sign-in.service.ts': 'failed sign-ins: the sign-in machinery',
  // One-time reset tokens, asked for by anyone for any address (no account is known, or told).
  'src/modules/accounts/password-reset.service.ts': 'reset tokens: the sign-in machinery',
};

/** The cleanup ledger is changed through its own door (media.cleanup.ts: lease, release, ...). */
const LEDGER_DOOR = {
  selector:
    'CallExpression[callee.property.name=/^(scheduleCleanup|cancelCleanup|extendCleanup|claimCleanup|dueCleanup|scheduleGalleryCleanup|scheduleAccountCleanup)$/]',
  message: "The cleanup ledger's door is the media cleanup (lease, extendLease, release, dueNow, scheduleNow).",
};

export default defineConfig(
  {
    ignores: [
      'node_modules/',
      '.tools/',
      'data/',
      'coverage/',
      'bench-results/',
      'test-results/',
      // The client package's build output, and the types `npm run client:types` generates.
      'packages/client/dist/',
      'packages/client/src/generated/',
      // The automation-platform integrations are npm projects of their own (integrations/*/package.json).
      // The n8n package has its own ESLint configuration (n8n's community-node rules, which need its
      // own install) and its own strict `tsc` build: `npm run test:n8n` runs both.
      'integrations/*/node_modules/',
      'integrations/n8n/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.js', 'bin/*.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-confusing-void-expression': 'off',
      '@typescript-eslint/no-unnecessary-condition': 'off',
    },
  },
  // Import boundaries (docs/architecture.md, "Rules that hold everywhere"). Each block covers its
  // own files only: ESLint does not merge two blocks' options for one rule.
  {
    // The HTTP layer knows features by their types only; features are wired in src/v1.ts.
    files: ['src/http/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'kysely', message: 'SQL lives in src/db/ and in repositories.' }],
          patterns: [
            {
              group: ['**/modules/**', '**/dashboard/**', '**/gallery/**'],
              allowTypeImports: true,
              message: 'src/http imports no feature values; wire features in src/v1.ts.',
            },
          ],
        },
      ],
    },
  },
  {
    // Pages call services, never SQL.
    files: ['src/dashboard/**/*.ts', 'src/gallery/**/*.ts', 'src/property/**/*.ts', 'src/public/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'kysely', message: 'Pages call services; SQL lives in repositories.' }],
          patterns: [{ group: ['**/*.repository.ts'], message: 'Pages call services, never a repository.' }],
        },
      ],
    },
  },
  {
    // A feature changes another feature's data through that feature's entry points (its service
    // or `*.entry.ts`), never its repository. Counts are the shared exception (every write applies
    // its count changes last in its own transaction: decisions/0005), and so are the rows the others
    // hang off: the gallery (media, assignment), the media row (uploads, variants) and the upload
    // row (the media cleanup ledger ends a deleted gallery's unfinished uploads).
    files: ['src/modules/**/*.ts'],
    ignores: ['**/*.test.ts', 'src/modules/**/*.repository.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'kysely', message: 'SQL lives in src/db/ and in repositories.' }],
          patterns: [
            {
              group: [
                '../*/*.repository.ts',
                '../../mechanisms/*/*.repository.ts',
                '!../listings/listings.repository.ts',
                '!../listings/listings.list.repository.ts',
                '!../media/media.repository.ts',
                '!../uploads/uploads.repository.ts',
                '!../../mechanisms/counts/counts.repository.ts',
              ],
              message: "Call the other feature's entry points (its service or outbox), not its repository.",
            },
          ],
        },
      ],
    },
  },
  // One door for every change (decisions/0018, docs/architecture.md "The unit of work"): outside
  // the infrastructure, a change runs in `writes.run` (or `writes.within`), which takes its locks
  // in one order, queues its jobs (`w.enqueue`, `w.runNow`) and records its events and counts. The
  // files of ONE_DOOR_ALLOWLIST, each for the reason beside it, are the only ones that open a
  // transaction of their own or queue a job by hand.
  {
    files: ['src/**/*.ts'],
    ignores: ['**/*.test.ts', 'src/db/**', 'src/mechanisms/**', ...Object.keys(ONE_DOOR_ALLOWLIST)],
    rules: { 'no-restricted-syntax': ['error', ...ONE_DOOR, LEDGER_DOOR, POOL_WRITE] },
  },
  {
    // The sign-in machinery's records: the unit of work's other rules still hold there.
    files: Object.keys(POOL_WRITE_ALLOWLIST),
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-syntax': ['error', ...ONE_DOOR, LEDGER_DOOR] },
  },
  {
    // The allowlisted files still keep to the ledger's door.
    files: Object.keys(ONE_DOOR_ALLOWLIST),
    rules: { 'no-restricted-syntax': ['error', LEDGER_DOOR] },
  },
  {
    // The cleanup ledger itself: its statements are its own; it opens no transaction either.
    files: ['src/modules/media/media.cleanup.ts'],
    rules: { 'no-restricted-syntax': ['error', ...ONE_DOOR] },
  },
  {
    // Mechanisms (queue, counts, versions, idempotency, events) serve features and know none of
    // them: a feature registers with a mechanism, never the other way round.
    files: ['src/mechanisms/**/*.ts', 'src/outbound/**/*.ts', 'src/lib/**/*.ts', 'src/db/**/*.ts', 'src/deps.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/modules/**', '**/dashboard/**', '**/gallery/**'],
              allowTypeImports: true,
              message: 'Infrastructure imports no feature values: features use it, not the other way round.',
            },
          ],
        },
      ],
    },
  },
  {
    // Everything else in src: no SQL outside src/db/ and repositories.
    files: ['src/**/*.ts'],
    ignores: [
      '**/*.test.ts',
      'src/db/**',
      'src/http/**',
      'src/dashboard/**',
      'src/gallery/**',
      'src/property/**',
      'src/public/**',
      'src/modules/**',
      'src/mechanisms/**',
      'src/outbound/**',
      'src/lib/**',
      'src/deps.ts',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { paths: [{ name: 'kysely', message: 'SQL lives in src/db/ and in repositories.' }] },
      ],
    },
  },
  {
    // The dashboard's one browser script: plain JavaScript, outside the TypeScript project.
    files: ['src/dashboard/assets/**/*.js', 'src/gallery/assets/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      globals: globals.browser,
      sourceType: 'script',
      parserOptions: { projectService: false, project: false, program: null },
    },
  },
  {
    // The client's core runs in browsers and edge runtimes: fetch and web APIs only. Node's
    // built-ins are for its Node entry point (src/node.ts, src/node-*.ts) alone.
    files: ['packages/client/src/**/*.ts'],
    ignores: ['packages/client/src/node.ts', 'packages/client/src/node-*.ts', 'packages/client/src/**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(node:.*|fs|path|stream|crypto|http|https|net|os|url|buffer|util|events|child_process)(/.*)?$',
              message:
                "The client's core runs outside Node: Node built-ins go in src/node*.ts (@lightbox/client/node).",
            },
          ],
        },
      ],
    },
  },
  {
    // Files stay under about 400 lines of code (comments and blank lines do not count: a comment
    // says why, and a file should not lose one to fit). A file split by size alone is harder to
    // read than a long one, so these are over on purpose, each for its reason:
    files: ['**/*.{ts,js}'],
    rules: { 'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }] },
  },
  ...Object.entries({
    // The five tus routes share their checks, the tus server and its hooks; split, each would
    // reach back into the others.
    'src/modules/uploads/uploads.routes.ts': 460,
    // The delivery scenarios share one misbehaving SMTP server and one fake clock, set up once.
    'src/modules/notifications/notifications.delivery.test.ts': 500,
    // One storage's whole tus case list, shared by the local and S3 suites, in the contract's order.
    'test/support/tus-cases.ts': 560,
    // One describe() per group of variables of the one module that reads process.env.
    'src/config.test.ts': 560,
    // The only reader of process.env: every variable's parsing and its refusal line in one place,
    // so a newcomer finds any setting in one file.
    'src/config.ts': 490,
    // One list of cases every MediaStorage must pass, in the order of the interface.
    'test/support/media-storage-cases.ts': 420,
    // One browser, one app and one gallery built once, then every scenario a client can take.
    'test/e2e/gallery.e2e.test.ts': 540,
    // One browser, one app and one studio's gallery built once, then the studio's steps in order.
    'test/e2e/workspace.e2e.test.ts': 480,
    // The whole served document against the routes the app registered, checked in one place.
    'src/http/openapi.test.ts': 630,
    // The route table of every authenticated /v1 route and the attacks run against each: split,
    // a new route could be left out of one half.
    'test/security.test.ts': 700,
    // One list of cases every MediaStorage must pass, then each storage's specifics.
    'src/storage/storage.test.ts': 460,
    // The Stripe stand-in and one account's whole payment story (keys, Checkout, signed events,
    // repeats, currencies): its cases share the stand-in's sessions and the account's invoices.
    'src/modules/stripe/stripe.test.ts': 440,
    // Every table of the database in one file, beside the event types: a newcomer reads the schema
    // in one place, as migrations/ made it.
    'src/db/schema.ts': 455,
    // The cleanup ledger's SQL: every table that owns stored bytes (media, variants, kit items) in
    // each of its unions, so a new owner cannot be left out of one.
    'src/modules/media/media.repository.ts': 420,
    // A gallery's dashboard page: its routes and the one loader that reads every panel of the page
    // (media, clients, share links, invoices, kit, compliance) at once, each panel's routes apart.
    'src/dashboard/galleries.routes.ts': 420,
  }).map(([file, max]) => ({
    files: [file],
    rules: { 'max-lines': ['error', { max, skipBlankLines: true, skipComments: true }] },
  })),
  {
    // The integrations' JavaScript (the Zapier app is CommonJS, as zapier-platform-core loads it;
    // the tests and shared harness are ES modules): outside the TypeScript project.
    files: ['integrations/**/*.js', 'integrations/**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      globals: globals.node,
      parserOptions: { projectService: false, project: false, program: null },
    },
  },
  {
    files: ['integrations/zapier/**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The benchmarks drive Lightbox as its users do, through `node bin/lightbox.js ...` and
    // HTTP (packages/bench/src/lib/procs.ts), never through its services or repositories. The
    // exceptions are the pure, config-free modules that the component benchmarks measure
    // against a bare baseline (bench:zip, bench:variants, bench:webhook-sender, bench:analysis:
    // the analysis stages, which take a file and read no config; bench:kit: the kit's videos,
    // rendered from files).
    files: ['packages/bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'kysely', message: 'The benchmarks drive Lightbox through its HTTP API and command line.' }],
          patterns: [
            {
              regex:
                '^(\\.\\./)+src/(?!(gallery/zip(-stream)?|modules/media/media\\.variants|modules/analysis/analysis\\.(pixels|models|models\\.thread|rooms)|modules/variants/variants\\.images|modules/kit/kit\\.video|modules/webhooks/webhooks\\.(sender|agents|address|signing)|outbound/(agents|address))\\.ts$)',
              message:
                'The benchmarks drive Lightbox through its HTTP API and command line; only the pure modules a component benchmark measures may be imported.',
            },
          ],
        },
      ],
    },
  },
  {
    // Migrations are frozen against Kysely<any> by design.
    files: ['migrations/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.test.ts', 'test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      // node:test's describe/test return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['describe', 'test', 'it', 'suite', 'before', 'after'] },
          ],
        },
      ],
    },
  },
);
