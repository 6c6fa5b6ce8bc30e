import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import optimizeLocales from '@react-aria/optimize-locales-plugin';
import { compression } from 'vite-plugin-compression2';

export default defineConfig({
  plugins: [
    // React Aria ships its strings for every locale; the app speaks English only, so only en-US
    // is kept (docs/decisions/003-component-kit.md, Consequences: Budget).
    optimizeLocales.vite({ locales: ['en-US'] }),
    react(),
    // `.br` and `.gz` next to each text asset, index.html included; the BFF serves them
    // (@fastify/static `preCompressed`), so pages load compressed at no CPU cost per request.
    compression({ algorithms: ['brotliCompress', 'gzip'], logLevel: 'silent' }),
  ],
  resolve: {
    // zod with `jitless` on before any schema is made, so it never tries `new Function`, which
    // the CSP refuses (src/client/zod-jitless.ts says why an alias and not the entry).
    alias: [
      {
        find: /^zod$/,
        replacement: fileURLToPath(new URL('src/client/zod-jitless.ts', import.meta.url)),
      },
      {
        find: /^zod\/mini$/,
        replacement: fileURLToPath(new URL('src/client/zod-mini-jitless.ts', import.meta.url)),
      },
    ],
  },
  build: { outDir: 'dist/client', sourcemap: false },
  server: {
    host: '127.0.0.1',
    proxy: { '/api': 'http://127.0.0.1:8080' },
  },
});
