// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import pluginQuery from '@tanstack/eslint-plugin-query';
import globals from 'globals';

/**
 * Folders that must never import each other (docs/architecture.md, Parts and data flow),
 * enforced with ESLint's own `no-restricted-imports`: import-x's resolver pulls platform binaries
 * that npm 11 leaves out of the lock file, which breaks `npm ci`. Import cycles and imports
 * between client features are refused by dependency-cruiser (`.dependency-cruiser.cjs`).
 */
const zones = {
  domain: ['client', 'server', 'sandbox', 'infra'],
  client: ['server', 'sandbox', 'infra'],
  server: ['client', 'sandbox'],
  sandbox: ['client', 'server'],
  infra: ['client', 'server', 'sandbox'],
};
const domainOnlyPatterns = ['node:*', 'react', 'react-*', 'fastify', '@fastify/*'];
/** An import climbing three folders or more goes through an alias (docs/decisions/009-import-aliases.md). */
const climbing = {
  group: ['../../../*', '../../../**'],
  message:
    'Import from another area through its alias (#domain/..., #server/..., #test/...: package.json imports)',
};

const zoneConfigs = Object.entries(zones).map(([folder, forbidden]) => ({
  files: [`src/${folder}/**/*.{ts,tsx}`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          ...forbidden.map((other) => ({
            group: [`\\#${other}/**`, `**/${other}/**`, `../${other}`, `../../${other}`],
            message: `src/${folder} must not import src/${other} (docs/architecture.md, Parts and data flow: dependency rule)`,
          })),
          ...(folder === 'domain'
            ? [{ group: domainOnlyPatterns, message: 'src/domain is pure TypeScript and zod' }]
            : []),
          climbing,
        ],
      },
    ],
  },
}));

export default tseslint.config(
  {
    ignores: [
      'dist',
      'node_modules',
      'data',
      'test-results',
      'playwright-report',
      'docs',
      // Generated from the OpenAPI document (`npm run api-client`).
      'packages/client/src/product-api.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/client/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: { ...reactHooks.configs.recommended.rules },
  },
  ...pluginQuery.configs['flat/recommended-strict'],
  ...zoneConfigs,
  {
    files: ['{test,e2e,bench,scripts}/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [climbing] }] },
  },
);
