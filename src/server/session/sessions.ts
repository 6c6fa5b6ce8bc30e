import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SessionInfo, SignInRequest } from '../../domain/session.ts';
import { REGION_NAMES, type Region } from '../../domain/token.ts';
import { ProblemError, notSignedIn } from '../http/problem.ts';
import type { TokenCache } from '../upstream/token-cache.ts';
import { InvalidCredentialsError, type IssuedToken } from '../upstream/token-endpoint.ts';
import {
  clearSessionCookie,
  readSessionId,
  setSessionCookie,
  type SessionCookie,
} from './session-cookie.ts';
import type { Session, SessionStore } from './session-store.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The request's session lookup, made once (see {@link Sessions.current}). A request
     * decoration (`app.ts`) rather than a WeakMap keyed by request: no ephemeron per request
     * for the garbage collector (bench CPU profile).
     */
    sessionLookup: Promise<Session | undefined> | null;
  }
}

/**
 * Who is signed in, as the browser may see it: never the secret or the token (docs/architecture.md,
 * BFF surface).
 */
export function sessionInfo(session: Session): SessionInfo {
  return {
    region: session.region,
    clientId: session.clientId,
    ...(session.operatorName ? { operatorName: session.operatorName } : {}),
    csrfHeader: 'X-CSRF',
  };
}

/** What {@link Sessions} works with. */
export interface SessionsOptions {
  store: SessionStore;
  tokens: TokenCache;
  cookie: SessionCookie;
  now: () => number;
  /**
   * The region's token endpoint (the upstream module's `token` call).
   *
   * @throws InvalidCredentialsError when it refuses the client.
   */
  requestToken: (
    region: Region,
    credentials: { clientId: string; clientSecret: string },
  ) => Promise<IssuedToken>;
}

/**
 * Sign-in, sign-out and the session of a request. Sign-in performs the client-credentials grant
 * against the chosen region and starts a fresh session (a new ID every time: no fixation); the
 * token goes to the token cache, the secret to the session store.
 */
export class Sessions {
  readonly #store: SessionStore;
  readonly #tokens: TokenCache;
  readonly #cookie: SessionCookie;
  readonly #now: () => number;
  readonly #requestToken: SessionsOptions['requestToken'];

  constructor(options: SessionsOptions) {
    this.#store = options.store;
    this.#tokens = options.tokens;
    this.#cookie = options.cookie;
    this.#now = options.now;
    this.#requestToken = options.requestToken;
  }

  /**
   * @throws ProblemError 401 `invalid_credentials` (same answer for an unknown client ID and a
   *   wrong secret), 502/504 when the token endpoint fails.
   */
  async signIn(
    request: FastifyRequest,
    reply: FastifyReply,
    input: SignInRequest,
  ): Promise<SessionInfo> {
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

  /** The live session of this request, or undefined; looked up once per request. */
  current(request: FastifyRequest): Promise<Session | undefined> {
    if (!request.sessionLookup) {
      const id = readSessionId(request, this.#cookie);
      request.sessionLookup = id ? this.#store.find(id, this.#now()) : Promise.resolve(undefined);
    }
    return request.sessionLookup;
  }

  /** @throws ProblemError 401 `not_signed_in` without a live session. */
  async require(request: FastifyRequest): Promise<Session> {
    const session = await this.current(request);
    if (!session) throw notSignedIn();
    return session;
  }

  /** Destroys the request's session, if any, and clears the cookie either way. */
  async signOut(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const id = readSessionId(request, this.#cookie);
    if (id) await this.#end(id);
    clearSessionCookie(reply, this.#cookie);
  }

  /** Ends a session whose credentials the upstream stopped accepting. */
  async revoke(session: Pick<Session, 'id'>): Promise<void> {
    await this.#end(session.id);
  }

  async #end(id: string): Promise<void> {
    this.#tokens.drop(id);
    await this.#store.destroy(id);
  }
}
