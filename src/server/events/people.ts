import type { Region } from '../../domain/token.ts';

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

/** The text that stands for an account in this instance's maps and the database's lock keys. */
export function accountKey(account: Account): string {
  return JSON.stringify([account.region, account.clientId]);
}
