import {
  LedgerOutcomeSchema,
  type LedgerEntry,
  type LedgerOutcome,
  type LedgerState,
} from '#domain/ledger.ts';
import { RegionSchema, type Region } from '#domain/token.ts';
import type { Operator } from '#domain/session.ts';
import type { ledgerEntries } from '../db/schema.ts';
import { StoredAnswerSchema, type StoredAnswer } from './ledger-answers.ts';

/** The upstream certainly did nothing: a retry with the same key may send it again. */
export const NOT_ACTED_ON_STATUSES: readonly number[] = [429, 503];

/** The call never left the BFF, whatever the status. */
export const NOT_SENT_CODES: readonly string[] = [
  'upstream_circuit_open',
  'token_endpoint_error',
  'token_endpoint_unreachable',
  'token_endpoint_timeout',
  'token_unreadable',
];

export function mayResend(row: LedgerRow): boolean {
  if (row.state !== 'failed') return false;
  if (NOT_ACTED_ON_STATUSES.includes(row.responseStatus ?? 0)) return true;
  const outcome = LedgerOutcomeSchema.safeParse(row.outcome);
  return (
    outcome.success &&
    outcome.data.status === undefined &&
    NOT_SENT_CODES.includes(outcome.data.error?.code ?? '')
  );
}

/** The signed-in client and the operator (typed name, or the company sign-in's issuer and subject). */
export interface LedgerActor {
  region: Region;
  clientId: string;
  operatorName?: string | undefined;
  operator?: Operator | undefined;
}

export type LedgerRow = typeof ledgerEntries.$inferSelect;

export interface Completion {
  state: Exclude<LedgerState, 'pending'>;
  outcome: LedgerOutcome;
  answer: StoredAnswer;
  commandId?: string | undefined;
  batchCommandId?: string | undefined;
  /** Known only with the answer (a batch cancel). */
  siteId?: string | undefined;
  timeZone?: string | undefined;
  nowMs: number;
  /** Nobody reconciles an `unknown` outcome before then. */
  leaseUntilMs?: number | undefined;
}

export function storedAnswerOf(row: LedgerRow): StoredAnswer | undefined {
  const parsed = StoredAnswerSchema.safeParse(row.response);
  return parsed.success ? parsed.data : undefined;
}

export function toLedgerEntry(row: LedgerRow, nowMs: number): LedgerEntry {
  const outcome = LedgerOutcomeSchema.safeParse(row.outcome);
  // A pending entry past its lease belongs to a call that never finished.
  const state =
    row.state === 'pending' && (row.leaseUntil?.getTime() ?? 0) < nowMs ? 'unknown' : row.state;
  return {
    id: String(row.id),
    kind: row.kind,
    state,
    region: RegionSchema.parse(row.region),
    clientId: row.clientId,
    ...(row.operatorName ? { operatorName: row.operatorName } : {}),
    ...(row.operatorIssuer !== null && row.operatorSubject !== null
      ? {
          operator: {
            issuer: row.operatorIssuer,
            subject: row.operatorSubject,
            ...(row.operatorName ? { name: row.operatorName } : {}),
            ...(row.operatorEmail ? { email: row.operatorEmail } : {}),
          },
        }
      : {}),
    ...(row.deviceId ? { deviceId: row.deviceId } : {}),
    ...(row.deviceIds ? { deviceIds: row.deviceIds } : {}),
    ...(row.siteId ? { siteId: row.siteId } : {}),
    ...(row.timeZone ? { timeZone: row.timeZone } : {}),
    ...(row.undoOf === null ? {} : { undoOf: String(row.undoOf) }),
    ...(row.commandId ? { commandId: row.commandId } : {}),
    ...(row.batchCommandId ? { batchCommandId: row.batchCommandId } : {}),
    ...(row.windowStart ? { startTime: row.windowStart.toISOString() } : {}),
    ...(row.windowEnd ? { endTime: row.windowEnd.toISOString() } : {}),
    ...(row.request === null ? {} : { request: row.request }),
    ...(outcome.success && row.outcome !== null ? { outcome: outcome.data } : {}),
    createdAt: row.createdAt.toISOString(),
    ...(row.completedAt ? { completedAt: row.completedAt.toISOString() } : {}),
  };
}
