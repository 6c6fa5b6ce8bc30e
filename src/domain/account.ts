import type { Role } from './roles.ts';
import type { Operator } from './session.ts';
import type { Region } from './token.ts';

/**
 * An account: one region and one partner client ID (docs/architecture.md, BFF surface). Every
 * browser signed in to it, with the credentials form or through the region's vendor connection
 * after a company sign-in, sees the same devices, so it gets the same events.
 */
export interface Account {
  region: Region;
  clientId: string;
}

/**
 * A person of an account, as the BFF can tell people apart (docs/security.md): after a company
 * sign-in the ID token's issuer and subject, which name them for good; after a credentials
 * sign-in the operator name typed at it; and an unnamed credentials sign-in is the client
 * itself, one person for every unnamed sign-in of that client ID.
 */
export type Person =
  | { kind: 'operator'; issuer: string; subject: string }
  | { kind: 'named'; name: string }
  | { kind: 'client' };

/**
 * The person behind a session, a ledger entry or a fleet job: who signed in with their company
 * account, else the typed operator name, else the client.
 */
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
          operator: {
            issuer: operator.issuer,
            subject: operator.subject,
            ...(operator.name ? { name: operator.name } : {}),
            ...(operator.email ? { email: operator.email } : {}),
            role: operator.role,
          },
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

/**
 * The text that stands for a person in the BFF's tables (a notification's recipient, an event's
 * recipient, a read): a JSON array, so no issuer, subject or name can pass for another's.
 */
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

/** Accounts whose key {@link accountKey} keeps made; more are not kept (a sign-in's client IDs). */
const KEPT_ACCOUNT_KEYS = 10_000;
const accountKeys = new Map<Region, Map<string, string>>();

/**
 * The text that stands for an account in this instance's maps and the database's lock keys: a
 * JSON array of region and client ID, so no client ID can pass for another account's.
 *
 * Made once per account and kept: it is asked several times on every status poll, and the
 * `JSON.stringify` per call was 1.6% of the BFF's CPU on status polls (bench CPU profile), and
 * a kept string is hashed once, not at every map lookup.
 */
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
