import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ESM_PACKAGES, hintedResolution } from '../scripts/package-scope-hints.mjs';

/**
 * The resolve hint `npm start` loads before tsx (scripts/package-scope-hints.mjs): it answers only
 * what Node would, for the packages as installed.
 */
const root = path.resolve(import.meta.dirname, '..');

/** The folder of an installed package, as Node finds it from the project's own files. */
const packageDir = (name: string) => path.join(root, 'node_modules', name);

/** Every package.json under `dir`, its own first. */
function packageJsonFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => path.basename(file) === 'package.json')
    .map((file) => path.join(dir, file));
}

/** The names each entry point exports, as a Node process started with `flags` imports them. */
function exportedNames(flags: string[], entries: string[]): string {
  const script = `for (const entry of ${JSON.stringify(entries)}) console.log(entry, Object.keys(await import(entry)).sort().join(','));`;
  return execFileSync(process.execPath, [...flags, '--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
  });
}

describe('package scope hints', () => {
  it.each(ESM_PACKAGES)('holds for %s as installed: one package.json, of type module', (name) => {
    const dir = packageDir(name);
    const files = packageJsonFiles(dir);
    expect(files).toEqual([path.join(dir, 'package.json')]);
    expect((JSON.parse(readFileSync(files[0] ?? '', 'utf8')) as { type?: string }).type).toBe(
      'module',
    );
  });

  it("answers a listed package's relative .js imports, and leaves every other one to Node", () => {
    const parent = pathToFileURL(path.join(packageDir('drizzle-orm'), 'pg-core', 'index.js')).href;
    expect(hintedResolution('./table.js', parent)).toEqual({
      url: new URL('./table.js', parent).href,
      format: 'module',
      shortCircuit: true,
    });
    expect(hintedResolution('../sql/index.js', parent)?.url).toBe(
      new URL('../sql/index.js', parent).href,
    );
    // Leaving the package, a bare name, another extension, a parent outside the package.
    expect(hintedResolution('../../zod/index.js', parent)).toBeUndefined();
    expect(hintedResolution('drizzle-orm/sql', parent)).toBeUndefined();
    expect(hintedResolution('./table.cjs', parent)).toBeUndefined();
    expect(hintedResolution('./x.js', pathToFileURL(path.join(root, 'src', 'a.ts')).href)).toBe(
      undefined,
    );
    expect(hintedResolution('./table.js', undefined)).toBeUndefined();
  });

  it('imports the same modules with the hint as without it', () => {
    const entries = ['drizzle-orm', 'drizzle-orm/pg-core', 'drizzle-orm/pglite'];
    const hinted = exportedNames(['--import', './scripts/package-scope-hints.mjs'], entries);
    expect(hinted).toBe(exportedNames([], entries));
    expect(hinted).toContain('pgTable');
  });
});
