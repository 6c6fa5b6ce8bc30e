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
