import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  actorName,
  actorOf,
  authorOf,
  personOf,
  sameAccount,
  type AccountActor,
} from '#domain/account.ts';
import { actingFor } from '../session/acting-for.ts';
import { SecretBox } from '../session/secret-box.ts';
import type { Session } from '../session/session-store.ts';

/** As a company sign-in named her, with her role at it. */
const ada = {
  issuer: 'https://idp',
  subject: 'ada',
  name: 'Ada',
  email: 'ada@x',
  role: 'dispatcher',
} as const;
const companySession: Session = {
  id: 'a'.repeat(43),
  region: 'eu',
  clientId: 'connection-client',
  clientSecret: 'connection-secret',
  operator: ada,
  idToken: 'id-token',
  createdAtMs: 1,
  lastSeenAtMs: 2,
};

describe('who acts for an account', () => {
  it('keeps of a session only its account and person, never its secret, ID or token', () => {
    const actor = actorOf(companySession);
    expect(actor).toEqual({
      region: 'eu',
      clientId: 'connection-client',
      operator: ada,
    });
    expect(JSON.stringify(actor)).not.toMatch(/secret|id-token|a{43}/);
    expect(authorOf(companySession)).toEqual({ person: personOf(companySession), name: 'Ada' });
  });

  it('names a credentials sign-in by its typed name, and the client itself by none', () => {
    const named = { region: 'au' as const, clientId: 'c', operatorName: 'Bo' };
    expect(actorOf({ ...named, operatorName: '' })).toEqual({ region: 'au', clientId: 'c' });
    expect(actorName(named)).toBe('Bo');
    expect(authorOf(named)).toEqual({ person: { kind: 'named', name: 'Bo' }, name: 'Bo' });
    const client: AccountActor = { region: 'au', clientId: 'c' };
    expect(authorOf(client)).toEqual({ person: { kind: 'client' } });
  });
});

describe('sameAccount', () => {
  it('takes both the region and the client ID', () => {
    expect(sameAccount(companySession, { region: 'eu', clientId: 'connection-client' })).toBe(true);
    expect(sameAccount(companySession, { region: 'au', clientId: 'connection-client' })).toBe(
      false,
    );
    expect(sameAccount(companySession, { region: 'eu', clientId: 'other-client' })).toBe(false);
  });
});

describe('actingFor', () => {
  const box = new SecretBox(randomBytes(32));
  const key = 'queued-change:42';

  it('acts as the person who made the work, with the secret sealed for it and its key as ID', () => {
    const session = actingFor({
      box,
      key,
      sealedSecret: box.seal('connection-secret', key),
      actor: companySession,
      nowMs: 5,
    });
    expect(session).toEqual({
      id: key,
      ...actorOf(companySession),
      clientSecret: 'connection-secret',
      createdAtMs: 5,
      lastSeenAtMs: 5,
    });
  });

  it('cannot act without a secret, or with one sealed for other work', () => {
    const other = box.seal('connection-secret', 'queued-change:43');
    const input = { box, key, actor: companySession, nowMs: 5 };
    expect(actingFor({ ...input, sealedSecret: null })).toBeUndefined();
    expect(actingFor({ ...input, sealedSecret: other })).toBeUndefined();
  });
});
