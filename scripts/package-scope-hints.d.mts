import type { ResolveFnOutput } from 'node:module';

/** Packages whose every `.js` file is an ES module by their one package.json's `type`. */
export declare const ESM_PACKAGES: readonly string[];

/**
 * The resolution of `specifier` when it is a relative `.js` import from a file of a listed
 * package, else undefined (Node resolves it).
 */
export declare function hintedResolution(
  specifier: string,
  parentUrl: string | undefined,
): ResolveFnOutput | undefined;
