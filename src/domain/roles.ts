import { z } from 'zod';

/**
 * Roles an operator holds in a company sign-in (docs/security.md, Sign-in for teams), lowest
 * first: a viewer reads everything; a dispatcher also schedules, cancels and sends batches; an
 * admin also holds the vendor connections and binds and unbinds sites.
 */
export const ROLES = ['viewer', 'dispatcher', 'admin'] as const;
export const RoleSchema = z.enum(ROLES);
export type Role = z.infer<typeof RoleSchema>;

/** Words for a role. */
export const ROLE_NAMES: Record<Role, string> = {
  viewer: 'viewer',
  dispatcher: 'dispatcher',
  admin: 'administrator',
};

/**
 * What a BFF route does, as roles see it: `read` (every GET), `dispatch` (submit, cancel, batch,
 * batch cancel), `administer` (site bindings, vendor connections).
 */
export type Permission = 'read' | 'dispatch' | 'administer';

/** The lowest role that may do each {@link Permission}. */
export const LOWEST_ROLE: Record<Permission, Role> = {
  read: 'viewer',
  dispatch: 'dispatcher',
  administer: 'admin',
};

/** True when `role` may do `permission`: roles are ordered, each holds the ones below it. */
export function roleAllows(role: Role, permission: Permission): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(LOWEST_ROLE[permission]);
}

/**
 * The highest role among an ID token's role values, through the configured names (each role's
 * list of IdP values); undefined when none matches.
 */
export function highestRole(
  values: readonly string[],
  names: Readonly<Record<Role, readonly string[]>>,
): Role | undefined {
  for (const role of [...ROLES].reverse())
    if (names[role].some((name) => values.includes(name))) return role;
  return undefined;
}

/** Why a role may not do something, in operator words (the SPA and the BFF's 403 say it). */
export function refusalFor(role: Role, permission: Permission): string {
  const needed = ROLE_NAMES[LOWEST_ROLE[permission]];
  const what =
    permission === 'administer'
      ? 'manage vendor connections and site bindings'
      : permission === 'dispatch'
        ? 'schedule, cancel or send batches of commands'
        : 'read';
  const article = (word: string) => (/^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`);
  return `You are signed in as ${article(ROLE_NAMES[role])}; only ${article(needed)}${permission === 'dispatch' ? ' or an administrator' : ''} may ${what}. Ask your administrator for the role if you need it.`;
}
