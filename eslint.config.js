// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import pluginQuery from '@tanstack/eslint-plugin-query';
import { importX } from 'eslint-plugin-import-x';
import globals from 'globals';

/** Folders that must never import each other (DESIGN.md section 1, STYLE.md). */
const zones = [
  { target: './src/domain', from: ['./src/client', './src/server', './src/sandbox', './src/infra'] },
  { target: './src/client', from: ['./src/server', './src/sandbox', './src/infra'] },
  { target: './src/server', from: ['./src/client', './src/sandbox'] },
  { target: './src/sandbox', from: ['./src/client', './src/server'] },
  { target: './src/infra', from: ['./src/client', './src/server', './src/sandbox'] },
];

export default tseslint.config(
  { ignores: ['dist', 'node_modules', 'data', 'test-results', 'playwright-report', 'docs'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    plugins: { 'import-x': importX },
    languageOptions: { globals: { ...globals.node } },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones }],
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
  {
    files: ['src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['node:*', 'react', 'react-*', 'fastify', '@fastify/*'] },
      ],
    },
  },
);
