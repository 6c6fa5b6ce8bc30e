import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'node',
          include: ['src/{domain,infra,server,sandbox}/**/*.test.ts', 'test/**/*.test.ts'],
          environment: 'node',
          testTimeout: 20_000,
          hookTimeout: 30_000,
        },
      },
      {
        plugins: [react()],
        test: {
          name: 'client',
          include: ['src/client/**/*.test.{ts,tsx}'],
          environment: 'happy-dom',
          setupFiles: ['src/client/testing/setup.ts'],
          // Vitest empties CSS imports; the design tokens are read as text by the tests of code
          // that reads them (testing/design-tokens.ts).
          css: { include: [/tokens\.css/] },
          // Form tests type with user-event; a loaded 2-core CI machine can take several seconds.
          testTimeout: 15_000,
        },
      },
    ],
  },
});
