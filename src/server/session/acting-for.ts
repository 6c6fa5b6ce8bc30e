import { actorOf, type AccountActor } from '../../domain/account.ts';
import type { SecretBox } from './secret-box.ts';
import type { Session } from './session-store.ts';

/**
 * The sign-in that background work acts under for an account (docs/architecture.md, Read model;
 * docs/fleet-dispatch.md; the queue of changes in src/server/README.md): a fleet job's batches,
 * a queued change's steps, the read model's reads of the account's devices. No browser is signed
 * in while it runs, so the client secret was sealed with the work when it was made (or, for the
 * read model, when a session of the account was last seen), bound to `key`, and is opened here.
 *
 * The session has `actor`'s account and person (only those: {@link actorOf}), so the ledger
 * records each call as made by the person who made the job or change; and `key` as its ID, so its
 * cached token is apart from every browser's session and every other work's. Its times are
 * `nowMs`: nothing expires a session that is made for one run.
 *
 * @param input.key the context the secret was sealed under, also the caller's ID:
 *   `fleet-job:<job ID>`, `queued-change:<change ID>`, `read-model:<region>:<client ID>`.
 * @param input.sealedSecret the client secret as `box.seal` made it, null when none was kept.
 * @returns undefined when no secret was kept or it no longer opens (`SESSION_KEY` changed, or
 *   it was sealed for another key): the work can no longer act for the account.
 */
export function actingFor(input: {
  box: SecretBox;
  key: string;
  sealedSecret: string | null;
  actor: AccountActor;
  nowMs: number;
}): Session | undefined {
  if (!input.sealedSecret) return undefined;
  let clientSecret: string;
  try {
    clientSecret = input.box.open(input.sealedSecret, input.key);
  } catch {
    return undefined;
  }
  return {
    id: input.key,
    ...actorOf(input.actor),
    clientSecret,
    createdAtMs: input.nowMs,
    lastSeenAtMs: input.nowMs,
  };
}
