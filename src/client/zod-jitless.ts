/**
 * `zod` as the SPA's build sees it (vite.config.ts aliases the bare specifier `zod` to this
 * file): zod itself, with its `jitless` setting on before any schema exists.
 *
 * zod 4 compiles a fast parser for each object schema with `new Function` unless `jitless` is
 * set, and finds out whether it may by trying `new Function('')` when the first object schema is
 * made. The CSP (`script-src 'self'`, no `'unsafe-eval'`) refuses it: the page keeps working on
 * zod's interpreted parser, but every load reported a CSP violation (a console error in Firefox).
 * Setting `jitless` in the entry module would come too late whenever the bundler puts a module
 * that makes schemas in a chunk evaluated before the entry's own code; here every module that
 * imports `zod` depends on this one, so ES module order runs it first, whatever the chunks.
 * The BFF and the sandbox import the real `zod` and keep its compiled parsers.
 */
import { config } from 'zod/v4/core';

config({ jitless: true });

// `zod/v4` is the module `zod` re-exports (zod 4.6: both are `v4/classic/external.js`), named
// differently so that the alias does not catch it.
export * from 'zod/v4';
