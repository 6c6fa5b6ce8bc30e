import { z } from 'zod';
import {
  BatchCancelResultSchema,
  BatchCommandSchema,
  BatchConfirmationSchema,
  UnconfirmedDeviceSchema,
  UnboundDeviceSchema,
} from './batch.ts';
import { ErrorSummarySchema } from './errors.ts';
import { BatchCommandIdSchema, CommandIdSchema, DeviceIdSchema, SiteIdSchema } from './ids.ts';
import { UtcTimestampSchema } from './time.ts';
import { OperatorSchema } from './session.ts';
import { RegionSchema } from './token.ts';

/** docs/architecture.md, Ledger; `siteTimeZone` and connection changes are recorded too. */
export const LEDGER_KINDS = [
  'submit',
  'cancel',
  'batch',
  'batchCancel',
  'bind',
  'unbind',
  'connection',
  'siteTimeZone',
  'webhook',
] as const;
export const LedgerKindSchema = z.enum(LEDGER_KINDS);
export type LedgerKind = z.infer<typeof LedgerKindSchema>;

/**
 * `unknown`: timed out, broke or 5xx, so whether it took effect is not known; the BFF reconciles it
 * through the history query before sending anything else for its window.
 */
export const LEDGER_STATES = ['pending', 'succeeded', 'failed', 'unknown'] as const;
export const LedgerStateSchema = z.enum(LEDGER_STATES);
export type LedgerState = z.infer<typeof LedgerStateSchema>;

/**
 * In the product's terms, never a vendor body. Entries of earlier versions read through it too:
 * their batches named every command (no `confirmation`: confirmed).
 */
export const LedgerOutcomeSchema = z.object({
  /** Absent when no answer came. */
  status: z.number().int().optional(),
  /** For a batch, those found so far per device. */
  commands: z.array(BatchCommandSchema).optional(),
  /** Absent: confirmed, as before. */
  confirmation: BatchConfirmationSchema.optional(),
  unconfirmed: z.array(UnconfirmedDeviceSchema).optional(),
  /** Each with its command's last read status. Worked out when read, never stored. */
  unbound: z.array(UnboundDeviceSchema).optional(),
  results: z.array(BatchCancelResultSchema).optional(),
  error: ErrorSummarySchema.optional(),
  reconciled: z.enum(['found', 'absent']).optional(),
  /** Devices of an unknown batch whose history showed no command of it; a later try skips them. */
  readWithoutCommand: z.array(DeviceIdSchema).optional(),
  /** False: saved unchecked, the token endpoint could not be reached. */
  checked: z.boolean().optional(),
});
export type LedgerOutcome = z.infer<typeof LedgerOutcomeSchema>;

/** One entry of `GET /api/ledger`. */
export const LedgerEntrySchema = z.object({
  id: z.string(),
  kind: LedgerKindSchema,
  state: LedgerStateSchema,
  region: RegionSchema,
  clientId: z.string(),
  /** The display name at that time (company sign-in) or the typed name. */
  operatorName: z.string().optional(),
  /** Company sign-in: issuer and subject, with name and e-mail then. */
  operator: OperatorSchema.optional(),
  deviceId: DeviceIdSchema.optional(),
  deviceIds: z.array(DeviceIdSchema).optional(),
  /** When all its devices belong to one bound site. */
  siteId: SiteIdSchema.optional(),
  /** As shown when written, so screens show the site's clock; `siteTimeZone`: the zone set. */
  timeZone: z.string().optional(),
  /** The entry undone, named in `Powerdeck-Undo-Of` (docs/architecture.md, Ledger). */
  undoOf: z.string().optional(),
  commandId: CommandIdSchema.optional(),
  batchCommandId: BatchCommandIdSchema.optional(),
  startTime: UtcTimestampSchema.optional(),
  endTime: UtcTimestampSchema.optional(),
  /** Never credentials. */
  request: z.unknown().optional(),
  outcome: LedgerOutcomeSchema.optional(),
  createdAt: UtcTimestampSchema,
  completedAt: UtcTimestampSchema.optional(),
});
export type LedgerEntry = z.infer<typeof LedgerEntrySchema>;

export const MAX_LEDGER_PAGE = 500;

/** Newest first; `before` an entry ID to page back; range `[from, to)`. */
export const LedgerQuerySchema = z.strictObject({
  deviceId: DeviceIdSchema.optional(),
  batchCommandId: BatchCommandIdSchema.optional(),
  siteId: SiteIdSchema.optional(),
  kind: LedgerKindSchema.optional(),
  state: LedgerStateSchema.optional(),
  /** Company sign-in: the operator's subject. */
  operator: z.string().min(1).max(255).optional(),
  from: UtcTimestampSchema.optional(),
  to: UtcTimestampSchema.optional(),
  before: z
    .string()
    .regex(/^\d{1,18}$/, { error: 'before must be a ledger entry ID' })
    .optional(),
  limit: z.coerce
    .number({ error: 'limit must be a number' })
    .int()
    .min(1)
    .max(MAX_LEDGER_PAGE, { error: `limit may be at most ${MAX_LEDGER_PAGE}` })
    .optional(),
});
export type LedgerQuery = z.infer<typeof LedgerQuerySchema>;

/** Body of `GET /api/ledger`. */
export const LedgerPageSchema = z.object({ entries: z.array(LedgerEntrySchema) });
export type LedgerPage = z.infer<typeof LedgerPageSchema>;
