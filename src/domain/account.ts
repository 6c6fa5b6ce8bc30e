import type { Role } from './roles.ts';
import { operatorOf, type Operator } from './session.ts';
import type { Region } from './token.ts';

/** Every browser of it sees the same devices, so gets the same events (docs/architecture.md). */
export interface Account {
  region: Region;
  clientId: string;
}

/** As the BFF tells people apart (docs/security.md); an unnamed credentials sign-in: the client. */
export type Person =
  | { kind: 'operator'; issuer: string; subject: string }
  | { kind: 'named'; name: string }
  | { kind: 'client' };

/** Who signed in with their company account, else the typed operator name, else the client. */
export function personOf(actor: {
  operator?: { issuer: string; subject: string } | undefined;
  operatorName?: string | null | undefined;
}): Person {
  if (actor.operator)
    return { kind: 'operator', issuer: actor.operator.issuer, subject: actor.operator.subject };
  const name = actor.operatorName?.trim();
  return name ? { kind: 'named', name } : { kind: 'client' };
}

/**
 * Who acts for an account, as their sign-in named them: the account, the name typed at a
 * credentials sign-in, or the person a company sign-in authenticated with their display name,
 * e-mail and role at that sign-in. What the ledger, a queued change and a fleet job keep of who
 * made them, and who the background work that carries them out acts as.
 */
export interface AccountActor extends Account {
  operatorName?: string | undefined;
  operator?: (Operator & { role: Role }) | undefined;
}

/**
 * The actor of a sign-in (a session, or the change or job that acts for its maker): its account
 * and person only, copied field by field, so that what is stored with a change, a job or a ledger
 * entry never takes the session's secret, ID or times along. An empty typed name is none.
 */
export function actorOf(signedIn: AccountActor): AccountActor {
  const { operator } = signedIn;
  return {
    region: signedIn.region,
    clientId: signedIn.clientId,
    ...(signedIn.operatorName ? { operatorName: signedIn.operatorName } : {}),
    ...(operator
      ? {
          operator: { ...operatorOf(operator), role: operator.role },
        }
      : {}),
  };
}

/**
 * True when `a` and `b` are the same account: same region and same client ID (a row read by ID
 * is the asker's only then; in a query, `ofAccount` in src/server/db/account-rows.ts).
 */
export function sameAccount(a: Account, b: Account): boolean {
  return a.region === b.region && a.clientId === b.clientId;
}

/** Only the account of `account` (a session, an actor or a caller passes as one). */
export function accountOf(account: Account): Account {
  return { region: account.region, clientId: account.clientId };
}

/**
 * Who made something, in words: the person's display name (company sign-in), else the name typed
 * at sign-in; undefined for the client itself.
 */
export function actorName(actor: {
  operator?: { name?: string | undefined } | undefined;
  operatorName?: string | null | undefined;
}): string | undefined {
  return actor.operator?.name ?? actor.operatorName ?? undefined;
}

/** Who did something, with their name in words at that time (display name or typed name). */
export interface Actor {
  person: Person;
  name?: string | undefined;
}

/**
 * The {@link Actor} of a sign-in, a change or a job (as {@link personOf} and {@link actorName}
 * read it), as the read model and notifications name people.
 */
export function authorOf(
  actor: Parameters<typeof personOf>[0] & Parameters<typeof actorName>[0],
): Actor {
  const name = actorName(actor);
  return { person: personOf(actor), ...(name ? { name } : {}) };
}

/** A JSON array, so no issuer, subject or name can pass for another's. */
export function personKey(person: Person): string {
  switch (person.kind) {
    case 'operator':
      return JSON.stringify(['operator', person.issuer, person.subject]);
    case 'named':
      return JSON.stringify(['named', person.name]);
    case 'client':
      return JSON.stringify(['client']);
  }
}

const KEPT_ACCOUNT_KEYS = 10_000;
const accountKeys = new Map<Region, Map<string, string>>();

/** A JSON array, so no client ID passes for another's; kept, as status polls ask it often. */
export function accountKey(account: Account): string {
  let keys = accountKeys.get(account.region);
  if (!keys) {
    keys = new Map();
    accountKeys.set(account.region, keys);
  }
  let key = keys.get(account.clientId);
  if (key === undefined) {
    key = JSON.stringify([account.region, account.clientId]);
    if (keys.size < KEPT_ACCOUNT_KEYS) keys.set(account.clientId, key);
  }
  return key;
}
