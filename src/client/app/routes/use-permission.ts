import { refusalFor, roleAllows, type Permission } from '#domain/roles.ts';
import { useSession } from '../../features/session/api/get-session.ts';

/**
 * Whether the operator may do `permission`, and why not (docs/security.md, Roles): a company
 * sign-in's role decides, credentials may do all. The BFF enforces the same rule.
 */
export function usePermission(permission: Permission): { allowed: boolean; why?: string } {
  const role = useSession().data?.role;
  if (role === undefined || roleAllows(role, permission)) return { allowed: true };
  return { allowed: false, why: refusalFor(role, permission) };
}
