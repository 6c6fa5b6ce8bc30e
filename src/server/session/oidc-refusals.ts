import * as client from 'openid-client';
import type { OidcRefusal } from '#domain/session.ts';

/** Never carries a token. */
export class OidcSignInError extends Error {
  override readonly name = 'OidcSignInError';
  /** Domain `OIDC_REFUSALS`. */
  readonly refusal: OidcRefusal;
  readonly reason: string | undefined;
  readonly details: Record<string, unknown>;
  /** `no_role` only: the sealed `id_token_hint` for signing out at the IdP. Never logged. */
  signOutHint: string | undefined;

  constructor(
    refusal: OidcRefusal,
    message: string,
    reason?: string,
    details: Record<string, unknown> = {},
  ) {
    super(message);
    this.refusal = refusal;
    this.reason = reason;
    this.details = details;
  }
}

export function describe(description: unknown): Record<string, unknown> {
  return typeof description === 'string' && description !== ''
    ? { errorDescription: description.slice(0, 200) }
    : {};
}

/** RFC 6749 4.1.2.1; OIDC Core 3.1.2.6. */
export function authorizationRefusal(error: string): OidcRefusal {
  switch (error) {
    case 'access_denied':
      return 'access_denied';
    case 'unauthorized_client':
      return 'unauthorized_client';
    case 'invalid_request':
    case 'invalid_scope':
    case 'unsupported_response_type':
    case 'invalid_request_uri':
    case 'invalid_request_object':
    case 'request_not_supported':
    case 'request_uri_not_supported':
    case 'registration_not_supported':
      return 'request_refused';
    case 'server_error':
    case 'temporarily_unavailable':
      return 'idp_unavailable';
    default:
      return 'idp_error';
  }
}

/** RFC 6749 5.2, or a 5xx without one. */
export function tokenRefusal(error: string | undefined, status: number): OidcRefusal {
  switch (error) {
    case 'invalid_client':
      return 'invalid_client';
    case 'invalid_grant':
      return 'invalid_grant';
    case 'unauthorized_client':
      // Glewlwyd 2.7.5 answers a refused client authentication with 403 `unauthorized_client`; the code
      // came from this client's own authorization, so it is a refused authentication.
      return 'invalid_client';
    case 'invalid_request':
    case 'invalid_scope':
    case 'unsupported_grant_type':
      return 'request_refused';
    case 'server_error':
    case 'temporarily_unavailable':
      return 'idp_unavailable';
    case undefined:
      // RFC 6749 5.2: a client that failed to authenticate may be answered 401 alone.
      if (status === 401) return 'invalid_client';
      return status >= 500 ? 'idp_unavailable' : 'idp_error';
    default:
      return status >= 500 ? 'idp_unavailable' : 'idp_error';
  }
}

/** oauth4webapi names a wrong `state` or `nonce` in its message. */
export function classify(error: unknown): OidcSignInError {
  if (error instanceof OidcSignInError) return error;
  if (error instanceof client.ResponseBodyError)
    return new OidcSignInError(
      tokenRefusal(error.error, error.status),
      'the identity provider refused the request',
      error.error,
      { status: error.status, ...describe(error.error_description) },
    );
  if (error instanceof client.WWWAuthenticateChallengeError) {
    const challenge = error.cause[0];
    const code = challenge?.parameters.error;
    return new OidcSignInError(
      tokenRefusal(code, error.status),
      'the identity provider answered with an authentication challenge',
      code,
      {
        status: error.status,
        ...(challenge ? { scheme: challenge.scheme } : {}),
        ...describe(challenge?.parameters.error_description),
      },
    );
  }
  if (error instanceof client.AuthorizationResponseError)
    return new OidcSignInError(
      authorizationRefusal(error.error),
      'the identity provider answered an error',
      error.error,
      describe(error.error_description),
    );
  const code = (error as { code?: unknown }).code;
  const reason = typeof code === 'string' ? code : undefined;
  const cause = (error as { cause?: unknown }).cause;
  if (
    (reason === 'OAUTH_RESPONSE_IS_NOT_CONFORM' || reason === 'OAUTH_RESPONSE_IS_NOT_JSON') &&
    cause instanceof Response
  )
    return new OidcSignInError(
      cause.status === 401 ? 'invalid_client' : 'idp_unavailable',
      'the identity provider answered something that is not an answer of the protocol',
      reason,
      {
        status: cause.status,
        ...(URL.canParse(cause.url) ? { at: new URL(cause.url).pathname } : {}),
      },
    );
  const message = [error, cause]
    .map((part) => (part instanceof Error ? part.message : ''))
    .join('; ');
  if (/"(state|nonce)"/.test(message))
    return new OidcSignInError('response_mismatch', message, reason);
  if (error instanceof TypeError && /fetch failed/i.test(message))
    return new OidcSignInError('idp_unreachable', message);
  return new OidcSignInError('id_token_invalid', message, reason);
}
