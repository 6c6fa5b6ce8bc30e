/**
 * Import rules that ESLint's `no-restricted-imports` cannot express (docs/architecture.md, Parts
 * and data flow): no import cycle anywhere, type-only imports included, and no client feature
 * importing another (route modules in `src/client/app/routes` compose them). The zones between
 * `src/domain`, `src/client`, `src/server`, `src/sandbox` and `src/infra` stay in
 * `eslint.config.js`, next to the rest of the lint rules. Run by `npm run lint`.
 *
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-import-cycle',
      severity: 'error',
      comment:
        'An import cycle ties modules together so neither can be read, tested or moved alone; ' +
        'move what both need into a module both import.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-feature-imports-another',
      severity: 'error',
      comment:
        'Features never import each other (src/client/README.md); a route module in ' +
        'src/client/app/routes composes them, or the shared piece moves to src/client/components, ' +
        'src/client/lib or the entity layer src/client/commands.',
      from: { path: '^src/client/features/([^/]+)/' },
      to: {
        path: '^src/client/features/([^/]+)/',
        pathNot: '^src/client/features/$1/',
      },
    },
    {
      name: 'no-upward-import-into-app',
      severity: 'error',
      comment: 'Only the entry imports src/client/app; features and shared code never do.',
      from: { path: '^src/client/(features|components|lib|commands|styles)/' },
      to: { path: '^src/client/app/' },
    },
    {
      name: 'no-shared-client-code-imports-features',
      severity: 'error',
      comment:
        'src/client/lib and src/client/components are shared by every feature and know none of ' +
        'them, nor the command entity layer above them (src/client/README.md).',
      from: { path: '^src/client/(lib|components)/' },
      to: { path: '^src/client/(features|commands)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)__tests__/|\\.test\\.tsx?$' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      extensions: ['.ts', '.tsx', '.js'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
