import { defineConfig } from 'drizzle-kit';

/** `npx drizzle-kit generate --config src/sandbox/db/drizzle.config.ts` writes the sandbox's migrations. */
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/sandbox/db/schema.ts',
  out: './src/sandbox/db/migrations',
  schemaFilter: ['sandbox'],
});
