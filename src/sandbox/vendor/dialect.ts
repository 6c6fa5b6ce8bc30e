import { z } from 'zod';

/**
 * The vendor's other documented dialects the sandbox can speak, so the BFF's tolerance of them
 * is tested (docs/upstream.md, Dialects):
 * - `envelope`: every business answer wrapped as `{ code, msg, data }` (requirements v1.2.1,
 *   section 3.1), errors with `data: null`; never the token endpoint's answers.
 * - `tokenShape`: `snake` (the partner guide's `access_token`, default) or `camel` (the OpenAPI
 *   document's `TokenResponse`: `accessToken`, `refreshToken`, `tokenType`, `expiresIn`).
 * - `reasonField`: `cancellReason` (the published spelling, default), `cancelReason` (the proposed
 *   rename) or `both`.
 */
export const DialectSettingsSchema = z.strictObject({
  envelope: z.boolean().optional(),
  tokenShape: z.enum(['snake', 'camel']).optional(),
  reasonField: z.enum(['cancellReason', 'cancelReason', 'both']).optional(),
});
export type DialectSettings = z.infer<typeof DialectSettingsSchema>;
export type Dialect = Required<DialectSettings>;

/** The dialect of the vendor's published documents. */
export const PUBLISHED_DIALECT: Dialect = {
  envelope: false,
  tokenShape: 'snake',
  reasonField: 'cancellReason',
};

/** The published dialect with `settings` over it. */
export function dialectOf(settings: DialectSettings): Dialect {
  return {
    envelope: settings.envelope ?? PUBLISHED_DIALECT.envelope,
    tokenShape: settings.tokenShape ?? PUBLISHED_DIALECT.tokenShape,
    reasonField: settings.reasonField ?? PUBLISHED_DIALECT.reasonField,
  };
}

/**
 * Parses `SANDBOX_DIALECT`: comma-separated `key=value` pairs, e.g.
 * `envelope=on,tokenShape=camel,reasonField=both`; empty or unset is the published dialect.
 * @throws Error naming the pair that is wrong and the values allowed.
 */
export function parseDialectVariable(text: string | undefined): Dialect {
  const settings: Record<string, unknown> = {};
  for (const pair of (text ?? '').split(',').map((part) => part.trim())) {
    if (pair === '') continue;
    const [key = '', value = '', ...rest] = pair.split('=').map((part) => part.trim());
    if (rest.length > 0 || value === '')
      throw new Error(`SANDBOX_DIALECT: "${pair}" is not key=value`);
    if (key === 'envelope') {
      if (value !== 'on' && value !== 'off')
        throw new Error(`SANDBOX_DIALECT: envelope must be on or off, not "${value}"`);
      settings.envelope = value === 'on';
    } else settings[key] = value;
  }
  const parsed = DialectSettingsSchema.safeParse(settings);
  if (!parsed.success)
    throw new Error(
      `SANDBOX_DIALECT: ${parsed.error.issues
        .map((issue) => `${issue.path.join('.') || 'key'}: ${issue.message}`)
        .join(
          '; ',
        )} (keys: envelope=on|off, tokenShape=snake|camel, reasonField=cancellReason|cancelReason|both)`,
    );
  return dialectOf(parsed.data);
}

/**
 * The dialect the sandbox speaks now: the one it started with, changed by the admin API
 * (`PUT /_sandbox/dialect`), back to the start on `reset`.
 */
export class SandboxDialect {
  private dialect: Dialect;

  constructor(private readonly startDialect: Dialect = PUBLISHED_DIALECT) {
    this.dialect = { ...startDialect };
  }

  get current(): Dialect {
    return { ...this.dialect };
  }

  /** Replaces the dialect: what `settings` leaves out is the published form. */
  set(settings: DialectSettings): void {
    this.dialect = dialectOf(settings);
  }

  /** Back to the dialect the sandbox started with. */
  reset(): void {
    this.dialect = { ...this.startDialect };
  }
}
