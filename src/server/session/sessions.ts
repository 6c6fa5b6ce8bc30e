import type { FastifyReply, FastifyRequest } from 'fastify';
import { refusalFor, roleAllows, type Permission } from '#domain/roles.ts';
import { operatorOf, type SessionInfo, type SignInRequest } from '#domain/session.ts';
import { REGION_NAMES, type Region } from '#domain/token.ts';
import { ProblemError, notSignedIn } from '../http/problem.ts';
import type { TokenCache } from '../upstream/token-cache.ts';
import { InvalidCredentialsError, type RequestToken } from '../upstream/token-endpoint.ts';
import {
  clearSessionCookie,
  readSessionId,
  setSessionCookie,
  type SessionCookie,
} from './session-cookie.ts';
import type { OperatorIdentity, Session, SessionStore, StoredSession } from './session-store.ts';
import { isConnectionCaller, type VendorConnections } from './vendor-connections.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** A request decoration, not a WeakMap: no ephemeron per request (bench CPU profile). */
    sessionLookup: Promise<StoredSession | undefined> | null;
  }
}

/** Never the secret or the token. */
export function sessionInfo(session: StoredSession): SessionInfo {
  const { operator } = session;
  return {
    region: session.region,
    ...(session.clientId === undefined ? {} : { clientId: session.clientId }),
    ...(session.operatorName ? { operatorName: session.operatorName } : {}),
    ...(operator
      ? {
          operator: operatorOf(operator),
          role: operator.role,
        }
      : {}),
    csrfHeader: 'X-CSRF',
  };
}

export interface SessionsOptions {
  store: SessionStore;
  tokens: TokenCache;
  cookie: SessionCookie;
  now: () => number;
  /** @throws InvalidCredentialsError when it refuses the client. */
  requestToken: RequestToken;
  connections?: VendorConnections | undefined;
}

/** A new session ID at every sign-in: no fixation. */
export class Sessions {
  readonly #store: SessionStore;
  readonly #tokens: TokenCache;
  readonly #cookie: SessionCookie;
  readonly #now: () => number;
  readonly #requestToken: SessionsOptions['requestToken'];
  readonly #connections: VendorConnections | undefined;

  constructor(options: SessionsOptions) {
    this.#connections = options.connections;
    this.#store = options.store;
    this.#tokens = options.tokens;
    this.#cookie = options.cookie;
    this.#now = options.now;
    this.#requestToken = options.requestToken;
  }

  /**
   * @throws ProblemError 401 `invalid_credentials` (the same for an unknown client ID and a wrong
   *   secret), 502/504 when the token endpoint fails.
   */
  async signIn(
    request: FastifyRequest,
    reply: FastifyReply,
    input: SignInRequest,
  ): Promise<SessionInfo> {
    if (this.#connections)
      throw new ProblemError(
        403,
        'credentials_sign_in_off',
        'This powerdeck signs operators in with their company account; the vendor credentials are held by an administrator. Use "Sign in with your company account".',
        { title: 'Sign-in with client credentials is off' },
      );
    let token;
    try {
      token = await this.#requestToken(input.region, input);
    } catch (error) {
      if (error instanceof InvalidCredentialsError)
        throw new ProblemError(
          401,
          'invalid_credentials',
          `The ${REGION_NAMES[input.region]} token endpoint did not accept this client ID or secret. Check both and the region, then try again.`,
          { title: 'Sign-in refused' },
        );
      throw error;
    }
    const previous = readSessionId(request, this.#cookie);
    if (previous) await this.#end(previous);
    const session = await this.#store.create(
      {
        region: input.region,
        clientId: input.clientId,
        clientSecret: input.clientSecret,
        ...(input.operatorName ? { operatorName: input.operatorName } : {}),
      },
      this.#now(),
    );
    this.#tokens.put(session.id, token);
    setSessionCookie(reply, this.#cookie, session.id);
    return sessionInfo(session);
  }

  /** A new ID every time; ends the request's earlier session if any. */
  async signInOperator(
    request: FastifyRequest,
    reply: FastifyReply,
    input: { region: Region; operator: OperatorIdentity; idToken: string },
  ): Promise<void> {
    const previous = readSessionId(request, this.#cookie);
    if (previous) await this.#end(previous);
    const session = await this.#store.create(input, this.#now());
    setSessionCookie(reply, this.#cookie, session.id);
  }

  /** Looked up once per request. */
  current(request: FastifyRequest): Promise<StoredSession | undefined> {
    if (!request.sessionLookup) {
      const id = readSessionId(request, this.#cookie);
      request.sessionLookup = id ? this.#store.find(id, this.#now()) : Promise.resolve(undefined);
    }
    return request.sessionLookup;
  }

  /**
   * docs/security.md, Roles: a credentials-form session may do everything; a company sign-in's role
   * decides, acting through the region's vendor connection. Nothing is sent upstream on a refusal.
   *
   * @throws ProblemError 401 `not_signed_in`, 403 `forbidden_role`, 503 `no_connection`.
   */
  async require(request: FastifyRequest, permission: Permission = 'read'): Promise<Session> {
    const session = await this.current(request);
    if (!session) throw notSignedIn();
    if (session.operator && !roleAllows(session.operator.role, permission))
      throw new ProblemError(403, 'forbidden_role', refusalFor(session.operator.role, permission), {
        title: 'Not allowed for your role',
      });
    // The request's own copy: no second copy on every poll.
    if (hasOwnCredentials(session)) return session;
    const connection = await this.#connections?.get(session.region);
    if (!connection) {
      const region = REGION_NAMES[session.region];
      throw new ProblemError(
        503,
        'no_connection',
        session.operator?.role === 'admin'
          ? `No vendor connection is registered for ${region} yet. Register the client ID and secret the vendor issued for ${region} on the Connections page.`
          : `No vendor connection is registered for ${region} yet. Only an administrator can register it, on the Connections page. Ask an administrator to add it.`,
        { title: 'No vendor connection' },
      );
    }
    // An API token is for one account: another client ID registered since is not its account.
    if (session.clientId !== undefined && session.clientId !== connection.clientId)
      throw new ProblemError(
        503,
        'no_connection',
        `The ${REGION_NAMES[session.region]} vendor connection now uses another client ID than the one this API token was made for. Ask an administrator for a new token.`,
        { title: 'No vendor connection' },
      );
    return {
      ...session,
      id: connection.callerId,
      clientId: connection.clientId,
      clientSecret: connection.clientSecret,
    };
  }

  /**
   * For the BFF's own records: any role, no vendor connection needed, so a company's audit is there
   * before its first connection.
   *
   * @throws ProblemError 401 `not_signed_in`.
   */
  async requireReader(request: FastifyRequest): Promise<StoredSession> {
    const session = await this.current(request);
    if (!session) throw notSignedIn();
    return session;
  }

  /** @throws ProblemError as {@link require}, and 404 `not_found` for a credentials-form session. */
  async requireOperator(
    request: FastifyRequest,
    permission: Permission,
  ): Promise<StoredSession & { operator: OperatorIdentity }> {
    const session = await this.current(request);
    if (!session) throw notSignedIn();
    const { operator } = session;
    if (!operator) throw new ProblemError(404, 'not_found', 'No such API route.');
    if (!roleAllows(operator.role, permission))
      throw new ProblemError(403, 'forbidden_role', refusalFor(operator.role, permission), {
        title: 'Not allowed for your role',
      });
    return { ...session, operator };
  }

  /** @returns the ended session (a company sign-in's carries the ID token for the IdP's logout). */
  async signOut(request: FastifyRequest, reply: FastifyReply): Promise<StoredSession | undefined> {
    const session = await this.current(request);
    const id = readSessionId(request, this.#cookie);
    if (id) await this.#end(id);
    clearSessionCookie(reply, this.#cookie);
    return session;
  }

  /** For a vendor connection no session ends: the answer says an administrator must replace it. */
  async revoke(session: Pick<Session, 'id' | 'region'>): Promise<ProblemError | undefined> {
    if (isConnectionCaller(session.id)) {
      this.#tokens.drop(session.id);
      return new ProblemError(
        503,
        'no_connection',
        `The ${REGION_NAMES[session.region]} token endpoint no longer accepts the vendor connection. Ask an administrator to replace it on the Connections page.`,
        { title: 'Vendor connection refused' },
      );
    }
    await this.#end(session.id);
    return undefined;
  }

  async #end(id: string): Promise<void> {
    this.#tokens.drop(id);
    await this.#store.destroy(id);
  }
}

function hasOwnCredentials(session: StoredSession): session is Session {
  return session.clientId !== undefined && session.clientSecret !== undefined;
}
