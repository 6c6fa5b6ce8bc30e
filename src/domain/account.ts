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
