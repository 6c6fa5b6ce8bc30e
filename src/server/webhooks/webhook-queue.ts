import { RegionSchema } from '#domain/token.ts';
import { DELIVERY_LOG_KEPT_MS } from '#domain/webhooks.ts';
import type { DatabaseHandle } from '#infra/database.ts';
import { QueueLifecycle, type JobQueueHost, type QueueLog } from '../db/job-queue.ts';
import type { Notifications } from '../notifications/notifications.ts';
import type { SecretBox } from '../session/secret-box.ts';
import type { WebhookSender } from './webhook-sender.ts';
import { signedHeaders } from './webhook-signing.ts';
import type {
  AttemptOutcome,
  ClaimedDelivery,
  EndpointRow,
  RecordedAttempt,
  WebhookStore,
} from './webhook-store.ts';

/** An attempt made, with the endpoint it went to. */
type Attempted = RecordedAttempt & { endpoint: EndpointRow };

/** The pg-boss queue of delivery attempts: one job attempts up to {@link WEBHOOK_JOB_SIZE}. */
export const WEBHOOK_QUEUE = 'webhook-delivery';
export const WEBHOOK_JOB_SIZE = 50;
/** Attempts one job makes at once (each mostly waits on the endpoint). */
export const ATTEMPTS_AT_ONCE = 8;
/** Attempts written together: two statements for them all rather than two each. */
const WRITE_EVERY_ATTEMPTS = 16;
/** A claimed delivery not attempted by then is claimed again (longer than an attempt's timeout). */
export const WEBHOOK_LEASE_MS = 2 * 60_000;
const PRUNE_EVERY_MS = 60 * 60_000;
/**
 * How soon after a delivery is written it is looked for: after its transaction commits and the
 * request that wrote it is answered, so the worker does not fall on it (bench/EVIDENCE.md,
 * Outgoing webhooks).
 */
const NUDGE_DELAY_MS = 250;

const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;

/**
 * The waits between a delivery's attempts after its first, immediate one: Standard Webhooks'
 * suggested schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), then 10 h more until about three
 * days have passed (67.6 h over 12 attempts). A delivery that fails them all disables its endpoint.
 */
export const RETRY_WAITS_MS: readonly number[] = [
  5 * SECOND_MS,
  5 * MINUTE_MS,
  30 * MINUTE_MS,
  2 * HOUR_MS,
  5 * HOUR_MS,
  10 * HOUR_MS,
  10 * HOUR_MS,
  10 * HOUR_MS,
  10 * HOUR_MS,
  10 * HOUR_MS,
  10 * HOUR_MS,
];

export interface WebhookQueueOptions {
  /** pg-boss's minimum is 0.5 s. Default 1. */
  pollingIntervalSeconds?: number | undefined;
  /** How often due deliveries are looked for, ms. Default 1000; 0: only on `recheck()`. */
  recheckIntervalMs?: number | undefined;
}

interface JobData {
  claims: { id: string; leaseUntilMs: number }[];
}

/**
 * Delivers outgoing webhooks (docs/architecture.md, Webhooks) on the BFF's pg-boss (decision
 * 005). A delivery is due on the webhooks' clock (injectable: tests move it rather than wait out
 * the schedule): every instance looks for due deliveries each second (and soon after one is
 * written), claims them with a lease and sends them as jobs; any instance's worker attempts them.
 * A 2xx ends a delivery; 410 Gone disables its endpoint (`gone`); any other answer or none waits
 * for the next attempt of {@link RETRY_WAITS_MS}; one that fails them all disables its endpoint
 * (`failing`); either tells the account's administrators in their inbox.
 */
export class WebhookQueue {
  readonly #life: QueueLifecycle;
  readonly #store: WebhookStore;
  readonly #sender: WebhookSender;
  readonly #box: SecretBox;
  readonly #notifications: Notifications;
  readonly #now: () => number;
  readonly #wallNow: () => number;
  readonly #log: QueueLog;
  readonly #options: WebhookQueueOptions;
  #workerId: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** When the planned look runs, on the wall clock (its timer's). */
  #timerAtMs: number | undefined;
  #pruneTimer: NodeJS.Timeout | undefined;
  #checking: Promise<unknown> | undefined;
  #running = new Set<Promise<void>>();

  /**
   * @param options.now the webhooks' clock, epoch ms: when deliveries are due.
   * @param options.wallNow the clock of `webhook-timestamp`, which receivers compare with theirs.
   */
  constructor(options: {
    handle: DatabaseHandle;
    host?: JobQueueHost | undefined;
    store: WebhookStore;
    sender: WebhookSender;
    box: SecretBox;
    notifications: Notifications;
    now: () => number;
    wallNow: () => number;
    log: QueueLog;
    options?: WebhookQueueOptions | undefined;
  }) {
    this.#life = new QueueLifecycle({
      handle: options.handle,
      host: options.host,
      log: options.log,
      name: 'webhook queue',
      whileDown: 'deliveries wait',
    });
    this.#store = options.store;
    this.#sender = options.sender;
    this.#box = options.box;
    this.#notifications = options.notifications;
    this.#now = options.now;
    this.#wallNow = options.wallNow;
    this.#log = options.log;
    this.#options = options.options ?? {};
  }

  /** Starts in the background, retrying with back-off until stopped; never rejects. Idempotent. */
  start(): Promise<void> {
    return this.#life.start(() => this.#startOnce());
  }

  async stop(timeoutMs = 10_000): Promise<void> {
    clearTimeout(this.#timer);
    clearInterval(this.#pruneTimer);
    await this.#life.halt();
    await this.#checking;
    await this.#life.stopHost(timeoutMs);
    await Promise.allSettled([...this.#running]);
    await this.#sender.close();
  }

  /** A delivery was written: look for due ones soon rather than at the next tick. */
  nudge(): void {
    if (this.#workerId === undefined || this.#life.signal.aborted) return;
    // Looks only on `recheck()`: a test moves the clock and says when.
    if (this.#options.recheckIntervalMs === 0) return;
    // Never later than a look already planned: a stream of events must not keep putting it off.
    if (this.#timerAtMs !== undefined && this.#timerAtMs <= Date.now() + NUDGE_DELAY_MS) return;
    this.#schedule(NUDGE_DELAY_MS);
  }

  /**
   * Claims what is due now and sends it as jobs. Tests call it after moving the clock.
   * @returns the deliveries claimed.
   */
  async recheck(): Promise<number> {
    const boss = this.#life.host.boss;
    if (!boss || this.#workerId === undefined || this.#life.signal.aborted) return 0;
    let claimedCount = 0;
    for (;;) {
      const nowMs = this.#now();
      const leaseUntilMs = nowMs + WEBHOOK_LEASE_MS;
      const ids = await this.#store.claimDue(nowMs, leaseUntilMs, WEBHOOK_JOB_SIZE);
      if (ids.length > 0) {
        await boss.send(WEBHOOK_QUEUE, {
          claims: ids.map((id) => ({ id, leaseUntilMs })),
        } satisfies JobData);
        claimedCount += ids.length;
      }
      if (ids.length < WEBHOOK_JOB_SIZE) break;
    }
    if (claimedCount > 0) boss.notifyWorker(this.#workerId);
    return claimedCount;
  }

  /** Deliveries older than {@link DELIVERY_LOG_KEPT_MS}, with their attempts. Never throws. */
  async prune(): Promise<void> {
    await this.#store.prune(this.#now() - DELIVERY_LOG_KEPT_MS).catch((error: unknown) => {
      this.#log.warn({ err: error }, 'webhooks: pruning old deliveries failed');
    });
  }

  async #startOnce(): Promise<void> {
    await this.#life.host.withStarted(async (boss) => {
      if (this.#life.signal.aborted) return;
      // A job's claims are leased: a failed job's deliveries are claimed again after the lease.
      await boss.createQueue(WEBHOOK_QUEUE, { expireInSeconds: 10 * 60, retryLimit: 0 });
      if (this.#life.signal.aborted) return;
      this.#workerId = await boss.work<JobData>(
        WEBHOOK_QUEUE,
        {
          pollingIntervalSeconds: this.#options.pollingIntervalSeconds ?? 1,
          batchSize: 1,
          localConcurrency: 2,
        },
        async (jobs) => {
          for (const job of jobs) {
            const run = this.#run(job.data);
            this.#running.add(run);
            try {
              await run;
            } finally {
              this.#running.delete(run);
            }
          }
        },
      );
    });
    this.#pruneTimer = setInterval(() => void this.prune(), PRUNE_EVERY_MS);
    this.#pruneTimer.unref();
    this.#schedule(0);
  }

  async #run(data: JobData): Promise<void> {
    const [first] = data.claims;
    if (!first) return;
    // One job's claims share their lease.
    const queue = await this.#store.claimed(
      data.claims.map((claim) => claim.id),
      first.leaseUntilMs,
    );
    const done: Attempted[] = [];
    let writing: Promise<void> = Promise.resolve();
    /** Writes what is done so far, one write at a time. */
    const flush = () => {
      const batch = done.splice(0);
      writing = writing.then(() => this.#record(batch));
      return writing;
    };
    const worker = async () => {
      for (let claimed = queue.shift(); claimed; claimed = queue.shift()) {
        const attempt = await this.#attempt(claimed).catch((error: unknown) => {
          this.#log.warn(
            { err: error, deliveryId: claimed.delivery.id },
            'webhooks: a delivery could not be attempted; its claim runs out and it is tried again',
          );
          return undefined;
        });
        if (attempt) done.push(attempt);
        if (done.length >= WRITE_EVERY_ATTEMPTS) void flush();
      }
    };
    await Promise.all(Array.from({ length: Math.min(ATTEMPTS_AT_ONCE, queue.length) }, worker));
    await flush();
  }

  /** Never throws: a write that failed leaves its deliveries claimed, tried again after the lease. */
  async #record(batch: Attempted[]): Promise<void> {
    try {
      await this.#store.recordAttempts(batch);
    } catch (error) {
      this.#log.warn({ err: error }, 'webhooks: attempts could not be written; tried again');
      return;
    }
    for (const { endpoint, result, outcome } of batch)
      if (result.statusCode === 410) await this.#disable(endpoint, 'gone');
      else if (outcome.status === 'failed') await this.#disable(endpoint, 'failing');
  }

  async #attempt(claimed: ClaimedDelivery): Promise<Attempted | undefined> {
    const { delivery, endpoint } = claimed;
    // Disabled since it was claimed: it waits for a redelivery by hand, as the others did.
    if (!endpoint.enabled) {
      await this.#store.endDelivery(delivery.id);
      return undefined;
    }
    const body = JSON.stringify(delivery.payload);
    const headers = signedHeaders(
      this.#secretsOf(endpoint),
      delivery.eventId,
      this.#wallNow(),
      body,
    );
    const atMs = this.#now();
    const result = await this.#sender.send(endpoint.url, headers, body);
    const outcome = this.#outcomeOf(claimed, result.succeeded, result.statusCode, atMs);
    return { id: delivery.id, atMs, result, outcome, endpoint };
  }

  #outcomeOf(
    { delivery }: ClaimedDelivery,
    succeeded: boolean,
    statusCode: number | undefined,
    atMs: number,
  ): AttemptOutcome {
    if (succeeded) return { status: 'succeeded' };
    if (statusCode === 410) return { status: 'failed' };
    const waitMs = RETRY_WAITS_MS[delivery.attemptsMade];
    return waitMs === undefined
      ? { status: 'failed' }
      : { status: 'pending', nextAttemptAtMs: atMs + waitMs };
  }

  /** The current secret, and the previous one while it still signs. */
  #secretsOf(endpoint: EndpointRow): string[] {
    const secrets = [this.#box.open(endpoint.secretCiphertext, webhookSealingKey(endpoint.id))];
    const until = endpoint.previousSecretUntil?.getTime();
    if (endpoint.previousSecretCiphertext && until !== undefined && until > this.#now())
      secrets.push(
        this.#box.open(endpoint.previousSecretCiphertext, webhookSealingKey(endpoint.id)),
      );
    return secrets;
  }

  async #disable(endpoint: EndpointRow, reason: 'gone' | 'failing'): Promise<void> {
    const disabled = await this.#store.disable(endpoint.id, reason, this.#now());
    if (!disabled) return;
    this.#log.info({ endpointId: endpoint.id, reason }, 'webhook endpoint disabled');
    await this.#notifications
      .notify({
        account: { region: RegionSchema.parse(endpoint.region), clientId: endpoint.clientId },
        kind: 'webhookEndpointDisabled',
        endpointId: endpoint.id,
        url: endpoint.url,
        reason,
      })
      .catch((error: unknown) => {
        this.#log.warn({ err: error }, 'webhooks: the administrators could not be told');
      });
  }

  /** Looks for due deliveries in `delayMs`, instead of when it was going to. */
  #schedule(delayMs: number): void {
    if (this.#life.signal.aborted) return;
    clearTimeout(this.#timer);
    this.#timerAtMs = Date.now() + delayMs;
    this.#timer = setTimeout(() => {
      this.#timerAtMs = undefined;
      this.#checking = this.#checkAndSchedule();
    }, delayMs);
    this.#timer.unref();
  }

  async #checkAndSchedule(): Promise<void> {
    try {
      await this.recheck();
    } catch (error) {
      if (!this.#life.signal.aborted)
        this.#log.warn(
          { reason: error instanceof Error ? error.message : String(error) },
          'webhook deliveries due could not be checked; trying again',
        );
    }
    const intervalMs = this.#options.recheckIntervalMs ?? 1_000;
    if (intervalMs > 0) this.#schedule(intervalMs);
  }
}

/** What an endpoint's secrets are sealed to (docs/security.md, Webhooks). */
export function webhookSealingKey(endpointId: string): string {
  return `webhook-endpoint:${endpointId}`;
}
