import { defineConfig } from 'drizzle-kit';

/** `npx drizzle-kit generate --config src/server/db/drizzle.config.ts` writes the BFF's migrations. */
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/server/db/schema.ts',
  out: './src/server/db/migrations',
  schemaFilter: ['bff'],
});
