// @ts-check
/**
 * Loaded by `npm start` before tsx (`--import`): resolves the relative imports of the packages in
 * {@link ESM_PACKAGES} without Node's lookup of their package scope, which was the larger part of
 * the server's module loading on Node 24. Plain JavaScript, so Node loads it without its
 * TypeScript stripper, a WebAssembly module that held 83 MB more resident (`start.rss_mb` 382
 * against 298.6, two runs of `npm run bench -- --only start`); its types are in
 * `package-scope-hints.d.mts`.
 *
 * Node 22 and later, resolving an ES module file, look up the package.json of its scope for the
 * file's module type, and every lookup parses that package.json's whole `exports` map again
 * (docs/decisions/002-node-24-runtime.md, Consequences). drizzle-orm's package.json lists 447
 * exports (179 KB) and its entry points load hundreds of files: `import('drizzle-orm/pg-core')`
 * took 0.7 s on Node 24 against 0.1 s on Node 20, and 0.05 s with this hook.
 *
 * For a relative `.js` import made by a file inside a listed package, the hook joins the URL and
 * names its format `module`: what Node would find, as each listed package has one package.json,
 * of `"type": "module"` (`test/package-scope-hints.test.ts` checks the installed packages, so an
 * upgrade that changes it fails there). Every other resolution, bare names included, is Node's.
 */
import { registerHooks } from 'node:module';

/** Packages whose every `.js` file is an ES module by their one package.json's `type`. */
export const ESM_PACKAGES = ['drizzle-orm'];

const scopes = ESM_PACKAGES.map((name) => `/node_modules/${name}/`);

/**
 * The resolution of `specifier` when it is a relative `.js` import from a file of a listed
 * package, else undefined (Node resolves it).
 *
 * @param {string} specifier
 * @param {string | undefined} parentUrl
 * @returns {import('node:module').ResolveFnOutput | undefined}
 */
export function hintedResolution(specifier, parentUrl) {
  if (!parentUrl?.startsWith('file:') || !specifier.endsWith('.js')) return undefined;
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  if (!scopes.some((scope) => parentUrl.includes(scope))) return undefined;
  const url = new URL(specifier, parentUrl).href;
  // `..` could leave the package; only an answer inside it is known to be an ES module.
  if (!scopes.some((scope) => url.includes(scope))) return undefined;
  return { url, format: 'module', shortCircuit: true };
}

registerHooks({
  resolve: (specifier, context, nextResolve) =>
    hintedResolution(specifier, context.parentURL) ?? nextResolve(specifier, context),
});
