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
      // The automation-platform integrations are npm projects of their own (integrations/*/package.json):
      // the n8n package's TypeScript is checked by its own strict `tsc` build.
      'integrations/*/node_modules/',
      'integrations/n8n/dist/',
      'integrations/n8n/**/*.ts',
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
