import { z } from 'zod';

/** The vendor's other dialects, so the BFF's tolerance of them is tested (docs/upstream.md). */
export const DialectSettingsSchema = z.strictObject({
  envelope: z.boolean().optional(),
  tokenShape: z.enum(['snake', 'camel']).optional(),
  reasonField: z.enum(['cancellReason', 'cancelReason', 'both']).optional(),
});
export type DialectSettings = z.infer<typeof DialectSettingsSchema>;
export type Dialect = Required<DialectSettings>;

export const PUBLISHED_DIALECT: Dialect = {
  envelope: false,
  tokenShape: 'snake',
  reasonField: 'cancellReason',
};

export function dialectOf(settings: DialectSettings): Dialect {
  return {
    envelope: settings.envelope ?? PUBLISHED_DIALECT.envelope,
    tokenShape: settings.tokenShape ?? PUBLISHED_DIALECT.tokenShape,
    reasonField: settings.reasonField ?? PUBLISHED_DIALECT.reasonField,
  };
}

/** `envelope=on,tokenShape=camel,reasonField=both`; empty is the published one. @throws Error. */
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

export class SandboxDialect {
  private dialect: Dialect;

  constructor(private readonly startDialect: Dialect = PUBLISHED_DIALECT) {
    this.dialect = { ...startDialect };
  }

  get current(): Dialect {
    return { ...this.dialect };
  }

  set(settings: DialectSettings): void {
    this.dialect = dialectOf(settings);
  }

  reset(): void {
    this.dialect = { ...this.startDialect };
  }
}
