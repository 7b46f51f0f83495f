// @ts-check
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

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
              group: ['**/modules/**', '**/dashboard/**'],
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
    files: ['src/dashboard/**/*.ts', 'src/gallery/**/*.ts'],
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
    // or outbox), never its repository. Counts are the shared exception (every write applies its
    // count changes last in its own transaction: decisions/0005), and so is the gallery row that
    // media and assignment hang off (STYLE.md: listings with media, clients with assignment).
    files: ['src/modules/**/*.ts'],
    ignores: ['**/*.test.ts', 'src/modules/**/*.repository.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'kysely', message: 'SQL lives in src/db/ and in repositories.' }],
          patterns: [
            {
              group: ['../*/*.repository.ts', '!../counts/counts.repository.ts', '!../listings/listings.repository.ts'],
              message: "Call the other feature's entry points (its service or outbox), not its repository.",
            },
          ],
        },
      ],
    },
  },
  {
    // Everything else in src: no SQL outside src/db/ and repositories.
    files: ['src/**/*.ts'],
    ignores: ['**/*.test.ts', 'src/db/**', 'src/http/**', 'src/dashboard/**', 'src/gallery/**', 'src/modules/**'],
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
    ignores: ['packages/client/src/node.ts', 'packages/client/src/node-*.ts'],
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
    // The benchmarks drive Lightbox as its users do, through `node bin/lightbox.js ...` and
    // HTTP (packages/bench/src/lib/procs.ts), never through its services or repositories. The
    // exceptions are the pure, config-free modules that the component benchmarks measure
    // against a bare baseline (bench:zip, bench:variants, bench:webhook-sender).
    files: ['packages/bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'kysely', message: 'The benchmarks drive Lightbox through its HTTP API and command line.' }],
          patterns: [
            {
              regex:
                '^(\\.\\./)+src/(?!(gallery/zip|modules/media/media\\.variants|modules/variants/variants\\.images|modules/webhooks/webhooks\\.(sender|agents|address|signing)|outbound/(agents|address))\\.ts$)',
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
