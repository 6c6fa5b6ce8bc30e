import { describe, expect, it } from 'vitest';
import { highestRole, refusalFor, roleAllows } from '../roles.ts';

describe('roles', () => {
  it('orders viewer < dispatcher < admin, each holding what the ones below may do', () => {
    expect(roleAllows('viewer', 'read')).toBe(true);
    expect(roleAllows('viewer', 'dispatch')).toBe(false);
    expect(roleAllows('dispatcher', 'dispatch')).toBe(true);
    expect(roleAllows('dispatcher', 'administer')).toBe(false);
    expect(roleAllows('admin', 'administer')).toBe(true);
    expect(roleAllows('admin', 'dispatch')).toBe(true);
  });

  it('takes the highest configured role among the claim values, or none', () => {
    const names = { viewer: ['ops-read'], dispatcher: ['ops-dispatch'], admin: ['ops-admin'] };
    expect(highestRole(['ops-read', 'ops-dispatch', 'other'], names)).toBe('dispatcher');
    expect(highestRole(['viewer', 'admin'], names)).toBeUndefined();
    expect(highestRole([], names)).toBeUndefined();
  });

  it('says who may, in words', () => {
    expect(refusalFor('viewer', 'dispatch')).toBe(
      'You are signed in as a viewer; only a dispatcher or an administrator may schedule, cancel or send batches of commands. Ask your administrator for the role if you need it.',
    );
    expect(refusalFor('dispatcher', 'administer')).toContain(
      'only an administrator may manage vendor connections and site bindings',
    );
  });
});
