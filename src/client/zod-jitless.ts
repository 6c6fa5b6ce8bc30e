/**
 * `zod` as the SPA sees it (vite.config.ts aliases `zod` here), with `jitless` on before any schema
 * exists: zod's `new Function` probe breaks the CSP (no `'unsafe-eval'`) and logs a violation.
 * Set in the entry module it would run too late when a chunk making schemas is evaluated first.
 */
import { config } from 'zod/v4/core';

config({ jitless: true });

// `zod/v4` is what `zod` re-exports (zod 4.6), named differently so the alias does not catch it.
export * from 'zod/v4';
