import type { Role } from '#domain/roles.ts';
import type { SessionInfo } from '#domain/session.ts';
import type { Region } from '#domain/token.ts';

/**
 * A company sign-in (docs/security.md) of `name` with `role` in `region`, as `GET /api/session`
 * answers it: the session of the tests that check what each role is offered.
 */
export const companySession = (role: Role, name = 'Vera', region: Region = 'eu'): SessionInfo => ({
  region,
  operator: { issuer: 'https://id.example.com', subject: 'u-1', name },
  operatorName: name,
  role,
});
