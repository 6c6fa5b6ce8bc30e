/**
 * `zod/mini` as the SPA sees it (vite.config.ts aliases it here), with `jitless` on for the same
 * reason as `zod-jitless.ts`. The sign-in page parses what it reads before its first paint with
 * schemas made of it: `zod/mini` is tree-shaken to the few parts used, while `zod`'s classic
 * schemas carry every method, about 23 KB of script on the wire (bench/EVIDENCE.md, Sign-in LCP).
 */
import { config } from 'zod/v4/core';

config({ jitless: true });

// `zod/v4/mini` is what `zod/mini` re-exports, named differently so the alias does not catch it.
export * from 'zod/v4/mini';
