/**
 * Import rules that ESLint's `no-restricted-imports` cannot express (docs/architecture.md, Parts
 * and data flow): no import cycle anywhere, type-only imports included, no client feature
 * importing another (route modules in `src/client/app/routes` compose them), and the BFF's
 * folders importing downwards only (src/server/README.md). The zones between `src/domain`,
 * `src/client`, `src/server`, `src/sandbox` and `src/infra` stay in `eslint.config.js`, next to
 * the rest of the lint rules. Run by `npm run lint`.
 *
 * @type {import('dependency-cruiser').IConfiguration}
 */

/**
 * The BFF's layers, top to bottom (src/server/README.md, "Folders import downwards only"): each
 * folder (or file) of `src/server`, and the others of `src/server` it may import besides its own
 * files; `src/domain` and `src/infra` are below all of them (their zones: `eslint.config.js`).
 * The composition root builds the app from all of them and has no rule: `app.ts`, `main.ts`,
 * `services.ts` (every service, once), `routes.ts` (every route group) and `server-options.ts`.
 * One rule per layer.
 */
const BELOW_SESSION = ['env.ts', 'upstream', 'http', 'db'];
const BELOW_LEDGER = ['budget', 'webhooks', 'notifications', 'events', 'session', ...BELOW_SESSION];
const BELOW_READ_MODEL = ['ledger', ...BELOW_LEDGER];
const SERVER_LAYERS = [
  ['product-api', ['changes', 'telemetry', 'read-model', ...BELOW_READ_MODEL]],
  ['fleet', ['changes', 'telemetry', 'read-model', ...BELOW_READ_MODEL]],
  ['telemetry', ['read-model', ...BELOW_READ_MODEL]],
  ['changes', BELOW_READ_MODEL],
  ['read-model', BELOW_READ_MODEL],
  ['ledger', BELOW_LEDGER],
  ['api-tokens', ['session', ...BELOW_SESSION]],
  ['webhooks', ['notifications', 'events', 'session', ...BELOW_SESSION]],
  ['notifications', ['events', 'session', ...BELOW_SESSION]],
  ['events', ['session', ...BELOW_SESSION]],
  ['session', BELOW_SESSION],
  ['env.ts', ['upstream', 'http', 'db']],
  ['upstream', ['http', 'db']],
  ['http', ['db']],
  ['budget', ['db']],
  ['db', []],
];

/** A path pattern of `src/server` parts: folders (`ledger/...`) and files (`env.ts`). */
function serverParts(parts) {
  const folders = parts.filter((part) => !part.endsWith('.ts'));
  const files = parts
    .filter((part) => part.endsWith('.ts'))
    .map((file) => file.replace('.', '\\.'));
  const alternatives = [
    ...(folders.length > 0 ? [`(?:${folders.join('|')})/`] : []),
    ...files.map((file) => `${file}$`),
  ];
  return `^src/server/(?:${alternatives.join('|')})`;
}

const serverLayerRules = SERVER_LAYERS.map(([part, below]) => ({
  name: `server-${part.replace('.ts', '')}-imports-downwards-only`,
  severity: 'error',
  comment:
    `src/server/${part} imports only ${below.length > 0 ? below.join(', ') : 'no other part'} ` +
    'of src/server (src/server/README.md, "Folders import downwards only"): a piece both a ' +
    'layer and one below it need moves down to the lower one, or is handed in by services.ts.',
  from: { path: serverParts([part]) },
  to: { path: '^src/server/', pathNot: serverParts([part, ...below]) },
}));

module.exports = {
  forbidden: [
    ...serverLayerRules,
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
