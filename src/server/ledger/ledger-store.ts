import { and, desc, eq, gt, gte, inArray, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Database } from '#infra/database.ts';
import {
  LedgerOutcomeSchema,
  type LedgerKind,
  type LedgerOutcome,
  type LedgerQuery,
} from '#domain/ledger.ts';
import { ledgerEntries } from '../db/schema.ts';
import { ofAccount } from '../db/account-rows.ts';
import { recordsOfKey, writeKeyRecord } from '../db/idempotency-records.ts';
import { BatchRequestSchema } from '#domain/batch.ts';
import type { Queryable } from '../events/event-store.ts';
import { batchAnswerOf, confirmedBatchOutcome } from './batch-confirmation.ts';
import { jsonAnswer, type StoredAnswer } from './ledger-answers.ts';
import { SUBMISSION_KINDS, type LedgerSubject } from './ledger-intent.ts';
import {
  NOT_ACTED_ON_STATUSES,
  NOT_SENT_CODES,
  storedAnswerOf,
  type Completion,
  type LedgerActor,
  type LedgerRow,
} from './ledger-rows.ts';

/**
 * The command ledger in `bff.ledger_entries`, shared by every instance: the unique idempotency
 * index and the conditional claim decide which instance sends.
 */
export class LedgerStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  /** With a key that already has an entry, writes nothing and answers that entry. */
  async begin(input: {
    kind: LedgerKind;
    actor: LedgerActor;
    subject: LedgerSubject;
    idempotencyKey?: string | undefined;
    undoOf?: number | undefined;
    requestHash: string;
    nowMs: number;
    leaseUntilMs: number;
  }): Promise<{ created: boolean; row: LedgerRow }> {
    const { subject, actor } = input;
    const row = await this.#db.transaction(async (txn) => {
      const tx = txn as unknown as Database;
      const [made] = await tx
        .insert(ledgerEntries)
        .values({
          kind: input.kind,
          state: 'pending',
          region: actor.region,
          clientId: actor.clientId,
          operatorName: actor.operator?.name ?? actor.operatorName ?? null,
          operatorIssuer: actor.operator?.issuer ?? null,
          operatorSubject: actor.operator?.subject ?? null,
          operatorEmail: actor.operator?.email ?? null,
          idempotencyKey: input.idempotencyKey ?? null,
          undoOf: input.undoOf ?? null,
          requestHash: input.requestHash,
          deviceId: subject.deviceId ?? null,
          deviceIds: subject.deviceIds ?? null,
          siteId: subject.siteId ?? null,
          timeZone: subject.timeZone ?? null,
          commandId: subject.commandId ?? null,
          batchCommandId: subject.batchCommandId ?? null,
          windowStart: subject.window ? new Date(subject.window.startTime) : null,
          windowEnd: subject.window ? new Date(subject.window.endTime) : null,
          request: subject.request ?? null,
          createdAt: new Date(input.nowMs),
          leaseUntil: new Date(input.leaseUntilMs),
        })
        .onConflictDoNothing()
        .returning();
      if (made && input.idempotencyKey)
        await writeKeyRecord(tx, {
          owner: actor,
          idempotencyKey: input.idempotencyKey,
          holder: 'ledger',
          holderId: String(made.id),
          requestHash: input.requestHash,
          nowMs: input.nowMs,
        });
      return made;
    });
    if (row) return { created: true, row };
    const existing = input.idempotencyKey
      ? await this.findByKey(actor, input.idempotencyKey)
      : undefined;
    if (!existing) throw new Error('ledger insert conflicted without an idempotency key');
    return { created: false, row: existing };
  }

  /** The entry the key's record names (`recordsOfKey`). */
  async findByKey(actor: LedgerActor, idempotencyKey: string): Promise<LedgerRow | undefined> {
    const { ledger } = await recordsOfKey(this.#db, actor, idempotencyKey);
    return ledger ? this.findById(Number(ledger.holderId)) : undefined;
  }

  /** If nobody else did meanwhile: an unsettled entry, or a failed one that {@link mayResend}. */
  async claim(row: LedgerRow, nowMs: number, leaseUntilMs: number): Promise<boolean> {
    const claimed = await this.#db
      .update(ledgerEntries)
      .set({ state: 'pending', leaseUntil: new Date(leaseUntilMs) })
      .where(
        and(
          eq(ledgerEntries.id, row.id),
          or(
            inArray(ledgerEntries.state, ['unknown', 'pending']),
            and(
              eq(ledgerEntries.state, 'failed'),
              or(
                inArray(ledgerEntries.responseStatus, [...NOT_ACTED_ON_STATUSES]),
                and(
                  sql`${ledgerEntries.outcome}->'status' is null`,
                  inArray(sql`${ledgerEntries.outcome}->'error'->>'code'`, [...NOT_SENT_CODES]),
                ),
              ),
            ),
          ),
          or(isNull(ledgerEntries.leaseUntil), lt(ledgerEntries.leaseUntil, new Date(nowMs))),
        ),
      )
      .returning({ id: ledgerEntries.id });
    return claimed.length === 1;
  }

  async complete(id: number, input: Completion): Promise<void> {
    await this.#db
      .update(ledgerEntries)
      .set({
        state: input.state,
        outcome: input.outcome,
        response: input.answer,
        responseStatus: input.answer.status,
        ...(input.commandId ? { commandId: input.commandId } : {}),
        ...(input.batchCommandId ? { batchCommandId: input.batchCommandId } : {}),
        ...(input.siteId ? { siteId: input.siteId } : {}),
        ...(input.timeZone ? { timeZone: input.timeZone } : {}),
        completedAt: new Date(input.nowMs),
        leaseUntil: input.leaseUntilMs === undefined ? null : new Date(input.leaseUntilMs),
      })
      .where(eq(ledgerEntries.id, id));
  }

  /**
   * So a later try of settling reads only the other devices. Nothing is written once the lease
   * moved: reads made before a new attempt say nothing of it.
   */
  async rememberReadWithoutCommand(row: LedgerRow, deviceIds: readonly string[]): Promise<void> {
    const outcome = LedgerOutcomeSchema.safeParse(row.outcome ?? {});
    const before = outcome.success ? outcome.data : {};
    const readWithoutCommand = [...new Set([...(before.readWithoutCommand ?? []), ...deviceIds])];
    await this.#db
      .update(ledgerEntries)
      .set({ outcome: { ...before, readWithoutCommand } })
      .where(
        and(
          eq(ledgerEntries.id, row.id),
          inArray(ledgerEntries.state, ['unknown', 'pending']),
          row.leaseUntil === null
            ? isNull(ledgerEntries.leaseUntil)
            : eq(ledgerEntries.leaseUntil, row.leaseUntil),
        ),
      );
  }

  /** A batch whose device commands were found since; state and times kept. */
  async updateOutcome(id: number, outcome: LedgerOutcome, answer: StoredAnswer): Promise<void> {
    await this.#db
      .update(ledgerEntries)
      .set({ outcome, response: answer })
      .where(eq(ledgerEntries.id, id));
  }

  /**
   * Inside the caller's `tx`, the entry locked, so reads on several instances never lose each
   * other's finds.
   *
   * @returns the entry as written, with its outcome before, or undefined when nothing changed.
   */
  async confirmBatchIn(
    tx: Queryable,
    id: number,
    found: ReadonlyMap<string, string>,
    notFound: ReadonlySet<string>,
  ): Promise<{ row: LedgerRow; before: LedgerOutcome; outcome: LedgerOutcome } | undefined> {
    const [row] = await tx
      .select()
      .from(ledgerEntries)
      .where(eq(ledgerEntries.id, id))
      .for('update');
    if (!row || row.kind !== 'batch' || row.state !== 'succeeded') return undefined;
    const before = LedgerOutcomeSchema.safeParse(row.outcome);
    const request = BatchRequestSchema.safeParse(row.request);
    if (!before.success || !request.success) return undefined;
    const outcome = confirmedBatchOutcome(before.data, request.data.devices, found, notFound);
    if (!outcome) return undefined;
    const stored = storedAnswerOf(row);
    const timestamp = (stored?.body as { timestamp?: unknown } | undefined)?.timestamp;
    const response = jsonAnswer(
      202,
      batchAnswerOf(row, outcome, typeof timestamp === 'string' ? timestamp : undefined),
    );
    await tx.update(ledgerEntries).set({ outcome, response }).where(eq(ledgerEntries.id, id));
    return { row: { ...row, outcome, response }, before: before.data, outcome };
  }

  async findByCommand(
    account: Pick<LedgerActor, 'region' | 'clientId'>,
    deviceId: string,
    commandId: string,
    tx: Queryable = this.#db,
  ): Promise<LedgerRow | undefined> {
    const [row] = await tx
      .select()
      .from(ledgerEntries)
      .where(
        and(
          ofAccount(ledgerEntries, account),
          inArray(ledgerEntries.kind, [...SUBMISSION_KINDS]),
          or(
            and(eq(ledgerEntries.deviceId, deviceId), eq(ledgerEntries.commandId, commandId)),
            sql`${ledgerEntries.outcome}->'commands' @> ${JSON.stringify([{ deviceId, id: commandId }])}::jsonb`,
          ),
        ),
      )
      .orderBy(desc(ledgerEntries.id))
      .limit(1);
    return row;
  }

  /** For the read model to adopt entries written before it existed. */
  async confirmingBatches(tx: Queryable = this.#db): Promise<LedgerRow[]> {
    return tx
      .select()
      .from(ledgerEntries)
      .where(
        and(
          eq(ledgerEntries.kind, 'batch'),
          eq(ledgerEntries.state, 'succeeded'),
          sql`${ledgerEntries.outcome}->>'confirmation' = 'confirming'`,
        ),
      );
  }

  async findById(id: number): Promise<LedgerRow | undefined> {
    const [row] = await this.#db.select().from(ledgerEntries).where(eq(ledgerEntries.id, id));
    return row;
  }

  async findBatch(actor: LedgerActor, batchCommandId: string): Promise<LedgerRow | undefined> {
    const [row] = await this.#db
      .select()
      .from(ledgerEntries)
      .where(
        and(
          ofAccount(ledgerEntries, actor),
          eq(ledgerEntries.kind, 'batch'),
          eq(ledgerEntries.batchCommandId, batchCommandId),
        ),
      )
      .orderBy(desc(ledgerEntries.id))
      .limit(1);
    return row;
  }

  /** `pending` or `unknown`: the caller tells a leased one from one to reconcile. */
  async unsettled(
    actor: LedgerActor,
    deviceIds: readonly string[],
    window: { startTime: string; endTime: string },
  ): Promise<LedgerRow[]> {
    const devices = or(
      inArray(ledgerEntries.deviceId, deviceIds),
      sql`${ledgerEntries.deviceIds} ?| ${toTextArray(deviceIds)}`,
    );
    return this.#db
      .select()
      .from(ledgerEntries)
      .where(
        and(
          ofAccount(ledgerEntries, actor),
          inArray(ledgerEntries.kind, [...SUBMISSION_KINDS]),
          inArray(ledgerEntries.state, ['unknown', 'pending']),
          lt(ledgerEntries.windowStart, new Date(window.endTime)),
          gt(ledgerEntries.windowEnd, new Date(window.startTime)),
          devices,
        ),
      )
      .orderBy(ledgerEntries.id);
  }

  async knownCommandIds(
    actor: Pick<LedgerActor, 'region' | 'clientId'>,
    deviceId: string,
    exceptId?: number,
    tx: Queryable = this.#db,
  ): Promise<Set<string>> {
    const rows = await tx
      .select({
        id: ledgerEntries.id,
        commandId: ledgerEntries.commandId,
        outcome: ledgerEntries.outcome,
      })
      .from(ledgerEntries)
      .where(
        and(
          ofAccount(ledgerEntries, actor),
          inArray(ledgerEntries.kind, [...SUBMISSION_KINDS]),
          or(
            eq(ledgerEntries.deviceId, deviceId),
            sql`${ledgerEntries.deviceIds} ?| ${toTextArray([deviceId])}`,
          ),
        ),
      );
    const ids = new Set<string>();
    for (const row of rows) {
      if (row.id === exceptId) continue;
      if (row.commandId) ids.add(row.commandId);
      const outcome = LedgerOutcomeSchema.safeParse(row.outcome);
      for (const command of outcome.success ? (outcome.data.commands ?? []) : [])
        if (command.deviceId === deviceId) ids.add(command.id);
    }
    return ids;
  }

  /** The vendor's records name no batch; the ledger does (docs/architecture.md, Ledger). */
  async batchOfCommands(actor: LedgerActor, deviceId: string): Promise<Map<string, string>> {
    const rows = await this.#db
      .select({ batchCommandId: ledgerEntries.batchCommandId, outcome: ledgerEntries.outcome })
      .from(ledgerEntries)
      .where(
        and(
          ofAccount(ledgerEntries, actor),
          eq(ledgerEntries.kind, 'batch'),
          eq(ledgerEntries.state, 'succeeded'),
          sql`${ledgerEntries.deviceIds} ?| ${toTextArray([deviceId])}`,
        ),
      );
    const batches = new Map<string, string>();
    for (const row of rows) {
      if (!row.batchCommandId) continue;
      const outcome = LedgerOutcomeSchema.safeParse(row.outcome);
      for (const command of outcome.success ? (outcome.data.commands ?? []) : [])
        if (command.deviceId === deviceId) batches.set(command.id, row.batchCommandId);
    }
    return batches;
  }

  /** Also entries whose window ends after `sinceMs` (a command scheduled days ago that runs today). */
  async recentCommandEntries(
    actor: Pick<LedgerActor, 'region' | 'operator'> & { clientId?: string | undefined },
    sinceMs: number,
    limit: number,
  ): Promise<LedgerRow[]> {
    const since = new Date(sinceMs);
    return this.#db
      .select()
      .from(ledgerEntries)
      .where(
        and(
          readableBy(actor),
          inArray(ledgerEntries.kind, ['submit', 'batch', 'cancel', 'batchCancel']),
          or(gte(ledgerEntries.createdAt, since), gt(ledgerEntries.windowEnd, since)),
        ),
      )
      .orderBy(desc(ledgerEntries.id))
      .limit(limit);
  }

  /** For a company sign-in, every entry of the same issuer's operators in the region. */
  async list(
    actor: Pick<LedgerActor, 'region' | 'operator'> & { clientId?: string | undefined },
    query: LedgerQuery,
    siteDeviceIds?: string[],
  ): Promise<LedgerRow[]> {
    const conditions: (SQL | undefined)[] = [readableBy(actor)];
    if (query.deviceId)
      conditions.push(
        or(
          eq(ledgerEntries.deviceId, query.deviceId),
          sql`${ledgerEntries.deviceIds} ?| ${toTextArray([query.deviceId])}`,
        ),
      );
    if (query.batchCommandId)
      conditions.push(eq(ledgerEntries.batchCommandId, query.batchCommandId));
    if (query.siteId) {
      const devices = siteDeviceIds ?? [];
      conditions.push(
        or(
          eq(ledgerEntries.siteId, query.siteId),
          ...(devices.length > 0
            ? [
                inArray(ledgerEntries.deviceId, devices),
                sql`${ledgerEntries.deviceIds} ?| ${toTextArray(devices)}`,
              ]
            : []),
        ),
      );
    }
    if (query.operator) conditions.push(eq(ledgerEntries.operatorSubject, query.operator));
    if (query.kind) conditions.push(eq(ledgerEntries.kind, query.kind));
    if (query.state) conditions.push(eq(ledgerEntries.state, query.state));
    if (query.from) conditions.push(gte(ledgerEntries.createdAt, new Date(query.from)));
    if (query.to) conditions.push(lt(ledgerEntries.createdAt, new Date(query.to)));
    if (query.before) conditions.push(lt(ledgerEntries.id, Number(query.before)));
    return this.#db
      .select()
      .from(ledgerEntries)
      .where(and(...conditions))
      .orderBy(desc(ledgerEntries.id))
      .limit(query.limit ?? 100);
  }
}

/** A company sign-in reads the company's ledger of the region, whichever connection was used. */
function readableBy(
  actor: Pick<LedgerActor, 'region' | 'operator'> & { clientId?: string | undefined },
): SQL | undefined {
  return and(
    eq(ledgerEntries.region, actor.region),
    actor.operator
      ? eq(ledgerEntries.operatorIssuer, actor.operator.issuer)
      : eq(ledgerEntries.clientId, actor.clientId ?? ''),
  );
}

function toTextArray(values: readonly string[]): SQL {
  return sql`array[${sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )}]::text[]`;
}
