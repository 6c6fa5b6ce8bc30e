import type { LoggerOptions } from 'pino';

/** Never logged: credentials, tokens, cookies (docs/security.md). */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-csrf"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  '*.clientSecret',
  '*.client_secret',
  '*.access_token',
  '*.accessToken',
  '*.token',
  '*.password',
];

/** Logger options shared by the BFF and the sandbox; level from `LOG_LEVEL`. */
export function loggerOptions(
  name: string,
  level = process.env.LOG_LEVEL ?? 'info',
): LoggerOptions {
  return { name, level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
}
