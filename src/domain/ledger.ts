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

/**
 * What the BFF records in its command ledger (docs/architecture.md, Ledger): every submission,
 * cancel, batch, batch cancel, bind and unbind made through it, every site time zone an
 * administrator set or cleared (`siteTimeZone`), and every change of a vendor connection (company
 * sign-in: registered, replaced, or refused by the token endpoint).
 */
export const LEDGER_KINDS = [
  'submit',
  'cancel',
  'batch',
  'batchCancel',
  'bind',
  'unbind',
  'connection',
  'siteTimeZone',
] as const;
export const LedgerKindSchema = z.enum(LEDGER_KINDS);
export type LedgerKind = z.infer<typeof LedgerKindSchema>;

/**
 * Where an entry stands. `pending`: intent written, upstream call under way. `succeeded` and
 * `failed`: the upstream answered (or reconciliation settled it). `unknown`: the call timed out,
 * the connection broke or the upstream failed with 5xx, so whether it took effect is not known;
 * the BFF reconciles it through the history query before sending anything else for its window.
 */
export const LEDGER_STATES = ['pending', 'succeeded', 'failed', 'unknown'] as const;
export const LedgerStateSchema = z.enum(LEDGER_STATES);
export type LedgerState = z.infer<typeof LedgerStateSchema>;

/**
 * What came of an entry's upstream call, in the product's terms (the adapter's answers, never a
 * vendor body). Entries written by earlier versions read through the same schema: their batches
 * named every command (no `confirmation`: confirmed), their errors carried upstream codes.
 */
export const LedgerOutcomeSchema = z.object({
  /** HTTP status of the answer; absent when no answer came. */
  status: z.number().int().optional(),
  /** Commands created: one for a submission; for a batch, those found so far per device. */
  commands: z.array(BatchCommandSchema).optional(),
  /** A batch: where finding its device commands stands (absent: confirmed, as before). */
  confirmation: BatchConfirmationSchema.optional(),
  /** A batch: its devices whose command is not found (yet). */
  unconfirmed: z.array(UnconfirmedDeviceSchema).optional(),
  /**
   * A batch: its devices whose site is unbound, each with its command's last read status (final:
   * it ended so before the unbind; else no longer followed, a final state of the batch). Worked
   * out when the entry is read, never stored.
   */
  unbound: z.array(UnboundDeviceSchema).optional(),
  /** Per-device results of a batch cancel. */
  results: z.array(BatchCancelResultSchema).optional(),
  /** Why the call failed, as the product problem said it. */
  error: ErrorSummarySchema.optional(),
  /** Set when the history query settled an `unknown` outcome: the command was found or not. */
  reconciled: z.enum(['found', 'absent']).optional(),
  /**
   * A batch whose outcome is still unknown: its devices whose history was read and showed no
   * command of it. A later try reads only the others (docs/architecture.md, Ledger).
   */
  readWithoutCommand: z.array(DeviceIdSchema).optional(),
  /**
   * A connection change: whether the token endpoint issued a token with the new credentials
   * before they were saved (false: saved unchecked, the endpoint could not be reached).
   */
  checked: z.boolean().optional(),
});
export type LedgerOutcome = z.infer<typeof LedgerOutcomeSchema>;

/** One ledger entry as `GET /api/ledger` answers it: who, what, when, and the outcome. */
export const LedgerEntrySchema = z.object({
  id: z.string(),
  kind: LedgerKindSchema,
  state: LedgerStateSchema,
  region: RegionSchema,
  clientId: z.string(),
  /** Who acted, in words: the display name at that time (company sign-in) or the typed name. */
  operatorName: z.string().optional(),
  /** Company sign-in: the person who acted (issuer and subject), with name and e-mail then. */
  operator: OperatorSchema.optional(),
  deviceId: DeviceIdSchema.optional(),
  deviceIds: z.array(DeviceIdSchema).optional(),
  /** The site of the entry's device(s), when they all belong to one bound site. */
  siteId: SiteIdSchema.optional(),
  /**
   * Time zone of that site (or of all the devices, when they share one zone): an IANA name or a
   * fixed offset, as the site was shown when the entry was written, so every screen shows its
   * times on the site's clock whatever the route. For a `siteTimeZone` entry: the zone set
   * (absent when it was cleared).
   */
  timeZone: z.string().optional(),
  /**
   * Set when this entry undoes an earlier one of the same operator (a cancel that undoes a
   * submission, a submission that undoes a cancel or restores a replaced window): the ID of the
   * entry it undoes. The browser names the earlier entry by the `Idempotency-Key` it sent with
   * it, in the `Powerdeck-Undo-Of` request header (docs/architecture.md, Ledger).
   */
  undoOf: z.string().optional(),
  commandId: CommandIdSchema.optional(),
  batchCommandId: BatchCommandIdSchema.optional(),
  startTime: UtcTimestampSchema.optional(),
  endTime: UtcTimestampSchema.optional(),
  /**
   * The request: the body of a submission or batch, a site time zone, or what a connection change
   * was (`ConnectionChangeSchema` in `connections.ts`); never credentials.
   */
  request: z.unknown().optional(),
  outcome: LedgerOutcomeSchema.optional(),
  createdAt: UtcTimestampSchema,
  completedAt: UtcTimestampSchema.optional(),
});
export type LedgerEntry = z.infer<typeof LedgerEntrySchema>;

/** Most entries one ledger query answers. */
export const MAX_LEDGER_PAGE = 500;

/**
 * Query of `GET /api/ledger`: optional filters by device, batch, site, kind, state, and a
 * creation-time range `[from, to)`; newest first, `limit` entries (default 100), and `before` an
 * entry ID to page further back.
 */
export const LedgerQuerySchema = z.strictObject({
  deviceId: DeviceIdSchema.optional(),
  batchCommandId: BatchCommandIdSchema.optional(),
  siteId: SiteIdSchema.optional(),
  kind: LedgerKindSchema.optional(),
  state: LedgerStateSchema.optional(),
  /** Company sign-in: only the entries of the operator with this subject. */
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
