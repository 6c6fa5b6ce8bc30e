import { ProblemSchema } from '#domain/errors.ts';
import {
  devicesOfChange,
  type DeviceChangeAnswer,
  type QueuedAnswer,
  type QueuedChangeStatus,
  type QueuedReason,
  type StepAnswer,
} from '#domain/queued-change.ts';
import { statusOf, type QueuedChangeRow } from '../budget/queued-change-rows.ts';
import type { ProblemError } from '../http/problem.ts';
import type { LedgerAnswer } from '../ledger/ledger-answers.ts';
import { keyReused, notSentProblem, withdrawn } from './change-problems.ts';

/** How an answer goes out: as the ledger stored it, as JSON, or as a queued step stored it. */
export type ChangeAnswer =
  | { ledger: LedgerAnswer }
  | { json: { status: number; body: unknown } }
  | { step: StepAnswer }
  | { problem: ProblemError };

/**
 * Where a change stands once answered: `sent` (the vendor accepted it, or the ledger replays its
 * acceptance), `queued` (it waits for its devices' budget), `refused` (nothing was sent, or the
 * vendor refused it), `unknown` (whether the vendor carried it out is not known yet).
 */
export type ChangeOutcome = { outcome: 'sent' | 'queued' | 'refused' | 'unknown' } & ChangeAnswer;

/** The 202 a route answers for a change it queued. */
export function queuedAnswerOf(row: QueuedChangeRow, reason: QueuedReason): QueuedAnswer {
  const status = statusOf(row);
  return {
    queued: {
      changeId: row.id,
      goesAt: status.goesAt ?? status.updatedAt,
      reason,
      deviceIds: devicesOfChange(row.change),
    },
  };
}

/** Nothing was sent, or the vendor refused it; `unknown` while whether it was carried out is not. */
export function problemOutcome(code: string): 'refused' | 'unknown' {
  return UNKNOWN_CODES.has(code) ? 'unknown' : 'refused';
}

/** Problems that say an earlier try may have been carried out (docs/architecture.md, Ledger). */
const UNKNOWN_CODES: ReadonlySet<string> = new Set(['outcome_unknown', 'reconciliation_pending']);

/** The ledger's answer, as it stored it. */
export function ledgerOutcome(answer: LedgerAnswer): ChangeOutcome {
  const { status, body } = answer.answer;
  if (status >= 200 && status < 300) return { outcome: 'sent', ledger: answer };
  const problem = ProblemSchema.safeParse(body);
  return {
    outcome: problem.success ? problemOutcome(problem.data.code) : 'refused',
    ledger: answer,
  };
}

export function queuedOutcome(answer: QueuedAnswer): ChangeOutcome {
  return { outcome: 'queued', json: { status: 202, body: answer } };
}

/** A queued step's stored answer (a refusal). */
export function stepOutcome(answer: StepAnswer): ChangeOutcome {
  const problem = ProblemSchema.safeParse(answer.body);
  return { outcome: problem.success ? problemOutcome(problem.data.code) : 'refused', step: answer };
}

/** A retry of a key whose change is in the queue: where it stands (the same request only). */
export function knownQueuedOutcome(row: QueuedChangeRow, fingerprint: string): ChangeOutcome {
  if (row.requestHash !== fingerprint) throw keyReused();
  const status = statusOf(row);
  if (status.state === 'queued' || status.state === 'sending')
    return queuedOutcome(queuedAnswerOf(row, 'no_slot'));
  // Ended without the ledger answering for it (the ledger's entry is checked first).
  if (status.state === 'withdrawn') throw withdrawn(status);
  const failedStep = status.steps.find((step) => step.state === 'failed');
  if (failedStep?.answer) return stepOutcome(failedStep.answer);
  throw notSentProblem(status);
}

/** A sent change with the cancellation and the new command its steps' answers hold. */
export function sentAnswerOf(status: QueuedChangeStatus): DeviceChangeAnswer {
  const answer: DeviceChangeAnswer = { change: status };
  for (const step of status.steps) {
    if (!step.answer) continue;
    if (step.call === 'cancel')
      answer.cancelled = step.answer.body as DeviceChangeAnswer['cancelled'];
    if (step.call === 'submit')
      answer.submitted = step.answer.body as DeviceChangeAnswer['submitted'];
  }
  return answer;
}
