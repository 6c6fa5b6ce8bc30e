import { isIP } from 'node:net';
import { z } from 'zod';
import { FIXTURE_NAMES } from './fixtures/fixtures.ts';
import { DEFAULT_DEVICE_CALLS_PER_MINUTE } from './state/device-call-limit.ts';
import { parseDialectVariable, type Dialect } from './vendor/dialect.ts';

const SandboxEnvSchema = z.object({
  SANDBOX_PORT: z.coerce.number().int().min(0).max(65535).default(8090),
  SANDBOX_HOST: z.string().min(1).default('127.0.0.1'),
  SANDBOX_FIXTURE: z.enum(FIXTURE_NAMES).default('demo'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z.string().min(1).optional(),
  SANDBOX_ADMIN: z.enum(['0', '1']).optional(),
  SANDBOX_DIALECT: z.string().optional(),
  // Digits only: coercing would read an empty value as 0, which turns the limit off.
  SANDBOX_RATE_LIMIT_PER_MINUTE: z
    .string()
    .regex(/^[0-9]+$/, { error: 'requests per device per minute, a whole number (0 = off)' })
    .transform(Number)
    .default(DEFAULT_DEVICE_CALLS_PER_MINUTE),
});

export interface SandboxEnv {
  port: number;
  host: string;
  fixture: (typeof FIXTURE_NAMES)[number];
  dataDir: string;
  databaseUrl: string | undefined;
  /** On a loopback address, or when `SANDBOX_ADMIN=1`. */
  adminEnabled: boolean;
  dialect: Dialect;
  deviceRateLimitPerMinute: number;
}

export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1' || host === '[::1]';
}

/** @throws ZodError naming the bad variable; Error naming a bad `SANDBOX_DIALECT` pair. */
export function parseSandboxEnv(env: NodeJS.ProcessEnv): SandboxEnv {
  const parsed = SandboxEnvSchema.parse(env);
  return {
    port: parsed.SANDBOX_PORT,
    host: parsed.SANDBOX_HOST,
    fixture: parsed.SANDBOX_FIXTURE,
    dataDir: parsed.DATA_DIR,
    databaseUrl: parsed.DATABASE_URL,
    adminEnabled: parsed.SANDBOX_ADMIN === '1' || isLoopback(parsed.SANDBOX_HOST),
    dialect: parseDialectVariable(parsed.SANDBOX_DIALECT),
    deviceRateLimitPerMinute: parsed.SANDBOX_RATE_LIMIT_PER_MINUTE,
  };
}
