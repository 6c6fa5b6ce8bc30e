import type { DatabaseHandle } from '#infra/database.ts';
import { QueueLifecycle, type JobQueueHost, type QueueLog } from '../db/job-queue.ts';
import type { CommandVerification, VerifyOutcome } from './command-verification.ts';
import type { VerdictKey } from './verdict-store.ts';

/** The pg-boss queue of verifications: one job verifies up to {@link VERDICT_JOB_SIZE} commands. */
export const VERDICT_QUEUE = 'command-verdict';
/** Commands per job: 10,000 windows ending at once are 100 jobs. */
export const VERDICT_JOB_SIZE = 100;
/** Verifications run at once per job (each mostly waits on its upstream call). */
export const VERIFICATIONS_AT_ONCE = 8;
/** Upstream clock: a claimed command not begun by then is claimed again by a later check. */
export const VERDICT_LEASE_MS = 5 * 60_000;

export interface VerdictQueueOptions {
  /** pg-boss's minimum is 0.5 s. Default 1. */
  pollingIntervalSeconds?: number | undefined;
  /** Default 1000 ms: verifications are due on the upstream's clock, which the sandbox moves. */
  recheckIntervalMs?: number | undefined;
  /** Jobs of the queue one instance runs at once. Default 2. */
  jobsAtOnce?: number | undefined;
}

interface JobData {
  /** Each with the lease its claim set: a job older than a later claim of the same row skips it. */
  claims: (VerdictKey & { leaseUntilMs: number })[];
}

export interface VerdictCounts {
  jobs: number;
  outcomes: Partial<Record<VerifyOutcome, number>>;
}

/**
 * The durable queue of verifications (docs/architecture.md, Verification), on the BFF's pg-boss
 * (decision 005). Each row of `command_verdicts` is due on the upstream's clock, which pg-boss
 * cannot follow (a `startAfter` is real time and the sandbox's clock jumps): every instance looks
 * for due rows each second, claims up to 100 at a time with a lease and sends them as one job;
 * any instance's worker verifies them. A BFF that dies mid-job leaves its rows leased; after the
 * lease any instance claims them again, and the stale job, should it run, skips them.
 */
export class VerdictQueue {
  readonly #life: QueueLifecycle;
  readonly #verification: CommandVerification;
  readonly #upstreamNow: () => number;
  readonly #log: QueueLog;
  readonly #options: VerdictQueueOptions;
  #workerId: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #checking: Promise<void> | undefined;
  readonly counts: VerdictCounts = { jobs: 0, outcomes: {} };

  constructor(options: {
    handle: DatabaseHandle;
    host?: JobQueueHost | undefined;
    verification: CommandVerification;
    upstreamNow: () => number;
    log: QueueLog;
    options?: VerdictQueueOptions | undefined;
  }) {
    this.#life = new QueueLifecycle({
      handle: options.handle,
      host: options.host,
      log: options.log,
      name: 'verification queue',
      whileDown: 'verdicts wait',
    });
    this.#verification = options.verification;
    this.#upstreamNow = options.upstreamNow;
    this.#log = options.log;
    this.#options = options.options ?? {};
  }

  /** Starts in the background, retrying with back-off until stopped; never rejects. Idempotent. */
  start(): Promise<void> {
    return this.#life.start(() => this.#startOnce());
  }

  async stop(timeoutMs = 10_000): Promise<void> {
    clearTimeout(this.#timer);
    await this.#life.halt();
    await this.#checking;
    await this.#life.stopHost(timeoutMs);
  }

  /**
   * Claims what is due now and sends it as jobs. Tests and the bench call it after moving the
   * clock. @returns the commands claimed.
   */
  async recheck(): Promise<number> {
    const boss = this.#life.host.boss;
    if (!boss || this.#workerId === undefined || this.#life.signal.aborted) return 0;
    let claimedCount = 0;
    for (;;) {
      const nowMs = this.#upstreamNow();
      const leaseUntilMs = nowMs + VERDICT_LEASE_MS;
      const claimed = await this.#verification.store.claimDue(
        nowMs,
        leaseUntilMs,
        VERDICT_JOB_SIZE,
      );
      if (claimed.length > 0) {
        await boss.send(VERDICT_QUEUE, {
          claims: claimed.map(({ key }) => ({ ...key, leaseUntilMs })),
        } satisfies JobData);
        claimedCount += claimed.length;
      }
      if (claimed.length < VERDICT_JOB_SIZE) break;
    }
    if (claimedCount > 0) boss.notifyWorker(this.#workerId);
    return claimedCount;
  }

  async #startOnce(): Promise<void> {
    await this.#life.host.withStarted(async (boss) => {
      if (this.#life.signal.aborted) return;
      await boss.createQueue(VERDICT_QUEUE, {
        expireInSeconds: 15 * 60,
        // A job's claims are leased: a job that failed is claimed again by the check.
        retryLimit: 0,
      });
      if (this.#life.signal.aborted) return;
      this.#workerId = await boss.work<JobData>(
        VERDICT_QUEUE,
        {
          pollingIntervalSeconds: this.#options.pollingIntervalSeconds ?? 1,
          batchSize: 1,
          localConcurrency: this.#options.jobsAtOnce ?? 2,
        },
        async (jobs) => {
          for (const job of jobs) await this.#run(job.data);
        },
      );
    });
    this.#schedule(0);
  }

  async #run(data: JobData): Promise<void> {
    this.counts.jobs += 1;
    const queue = [...data.claims];
    const worker = async () => {
      for (let claim = queue.shift(); claim; claim = queue.shift()) {
        const outcome = await this.#verifyClaimed(claim).catch((error: unknown) => {
          this.#log.warn(
            { err: error, deviceId: claim.deviceId, commandId: claim.commandId },
            'verification: a command could not be verified; its claim runs out and it is tried again',
          );
          return 'failed' as const;
        });
        this.counts.outcomes[outcome] = (this.counts.outcomes[outcome] ?? 0) + 1;
      }
    };
    await Promise.all(
      Array.from({ length: Math.min(VERIFICATIONS_AT_ONCE, queue.length) }, worker),
    );
  }

  async #verifyClaimed(claim: JobData['claims'][number]): Promise<VerifyOutcome> {
    const { leaseUntilMs, ...key } = claim;
    const nowMs = this.#upstreamNow();
    const secret = await this.#verification.store.take(key, leaseUntilMs, nowMs + VERDICT_LEASE_MS);
    if (secret === undefined) return 'skipped';
    return this.#verification.verify(key, secret);
  }

  #schedule(delayMs: number): void {
    if (this.#life.signal.aborted) return;
    const intervalMs = this.#options.recheckIntervalMs ?? 1_000;
    this.#timer = setTimeout(
      () => {
        this.#checking = this.#checkAndSchedule();
      },
      Math.max(0, Math.min(intervalMs, delayMs)),
    );
    this.#timer.unref();
  }

  async #checkAndSchedule(): Promise<void> {
    const intervalMs = this.#options.recheckIntervalMs ?? 1_000;
    try {
      await this.recheck();
    } catch (error) {
      if (!this.#life.signal.aborted)
        this.#log.warn(
          { reason: error instanceof Error ? error.message : String(error) },
          'verifications due could not be checked; trying again',
        );
    }
    this.#schedule(intervalMs);
  }
}
