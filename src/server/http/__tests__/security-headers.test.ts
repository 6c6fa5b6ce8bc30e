import { readFile, readdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import {
  CONTENT_SECURITY_POLICY,
  installSecurityHeaders,
  REACT_ARIA_STYLES,
  styleHashSource,
} from '../security-headers.ts';

/** The installed react-aria's folder (the version the SPA is built with). */
const reactAriaDir = path.dirname(
  createRequire(import.meta.url).resolve('react-aria/package.json'),
);

/** Every `.mjs` file under `dir`, relative to it. */
async function moduleFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.mjs'))
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));
}

/**
 * The text React Aria gives the `<style>` it inserts in `file`: the template assigned to
 * `style.textContent`, trimmed as the code trims it, with its one interpolation (usePress's
 * attribute name, a constant of the same file) filled in.
 */
async function insertedStyleText(file: string): Promise<string> {
  const source = await readFile(path.join(reactAriaDir, 'dist', file), 'utf8');
  const template = /style\.textContent = `([^`]*)`\.trim\(\)/.exec(source)?.[1];
  if (template === undefined) throw new Error(`no style.textContent template in ${file}`);
  return template
    .replace(/\$\{([^}]+)\}/g, (_, name: string) => {
      const constant = new RegExp(`const ${name.replace(/\$/g, '\\$')} = '([^']*)'`).exec(source);
      if (!constant) throw new Error(`cannot resolve \${${name}} in ${file}`);
      return constant[1] ?? '';
    })
    .trim();
}

describe('React Aria and the CSP', () => {
  it('inserts a <style> in exactly two modules of the installed react-aria and its components', async () => {
    const inserting: string[] = [];
    for (const packageDir of [reactAriaDir, path.join(reactAriaDir, '../react-aria-components')])
      for (const file of await moduleFiles(path.join(packageDir, 'dist'))) {
        const source = await readFile(path.join(packageDir, 'dist', file), 'utf8');
        if (/createElement\(['"`]style['"`]\)/.test(source))
          inserting.push(`${path.basename(packageDir)}/${file}`);
      }
    expect(inserting.sort()).toEqual([
      'react-aria/private/interactions/usePress.mjs',
      'react-aria/private/overlays/usePreventScroll.mjs',
    ]);
  });

  it('allows those two styles, text for text, and no other inline style', async () => {
    const shipped = [
      await insertedStyleText('private/interactions/usePress.mjs'),
      await insertedStyleText('private/overlays/usePreventScroll.mjs'),
    ];
    expect(shipped).toEqual([...REACT_ARIA_STYLES]);
    expect(CONTENT_SECURITY_POLICY.styleSrc).toEqual([
      "'self'",
      ...shipped.map((text) => styleHashSource(text)),
    ]);
  });

  it('hashes as a browser does: SHA-256 of the UTF-8 text, base64', () => {
    // The CSP Level 3 specification's own example (section 2.3.1, hash-source).
    expect(styleHashSource("alert('Hello, world.');")).toBe(
      "'sha256-qznLcsROx4GACP2dm0UCKCzCG+HiZ1guq6ZZDob/Tng='",
    );
  });
});

describe('installSecurityHeaders', () => {
  it("sends the hashes on pages and API answers, never 'unsafe-inline' or 'unsafe-eval'", async () => {
    const app = Fastify({ logger: false });
    await installSecurityHeaders(app, { https: false });
    app.get('/sites', (_request, reply) => reply.type('text/html').send('<!doctype html>'));
    app.get('/api/session', (_request, reply) => reply.send({}));
    try {
      for (const url of ['/sites', '/api/session']) {
        const csp = String((await app.inject({ url })).headers['content-security-policy']);
        const styleSrc = csp.split(';').find((directive) => directive.startsWith('style-src'));
        expect(styleSrc).toBe(
          `style-src 'self' ${REACT_ARIA_STYLES.map((text) => styleHashSource(text)).join(' ')}`,
        );
        expect(csp).not.toContain('unsafe-');
        expect(csp).toContain("script-src 'self';");
      }
    } finally {
      await app.close();
    }
  });
});
