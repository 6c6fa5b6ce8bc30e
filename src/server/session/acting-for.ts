import { actorOf, type AccountActor } from '#domain/account.ts';
import type { SecretBox } from './secret-box.ts';
import type { Session } from './session-store.ts';

/**
 * The sign-in background work acts under (fleet jobs, queued changes, the read model): the client
 * secret sealed with the work, bound to `key`, opened here. The session has only `actor`'s account
 * and person, so the ledger records the call as theirs, and `key` as ID, so its cached token is
 * apart from every browser's.
 *
 * @param input.key `fleet-job:<job ID>`, `queued-change:<change ID>`, `read-model:<region>:<client ID>`.
 * @returns undefined when no secret was kept or it no longer opens (`SESSION_KEY` changed).
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
