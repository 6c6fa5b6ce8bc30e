import { OAuthErrorBodySchema } from '../../domain/errors.ts';
import { TOKEN_PATH, TokenResponseSchema, type TokenResponse } from '../../domain/token.ts';
import { ProblemError } from '../http/problem.ts';
import {
  discard,
  isJsonMediaType,
  mediaType,
  readCapped,
  transportProblem,
  type UpstreamHttp,
} from './upstream-http.ts';

/** The client credentials were refused by the token endpoint (RFC 6749 5.2 `invalid_client`...). */
export class InvalidCredentialsError extends Error {
  override readonly name = 'InvalidCredentialsError';
  readonly code = 'invalid_credentials';
}

/** RFC 6749 5.2 errors that mean "these credentials do not work", whatever the exact reason. */
const CREDENTIAL_ERRORS = new Set(['invalid_client', 'unauthorized_client', 'invalid_grant']);

/**
 * Obtains an access token with the client-credentials grant at `${authUrl}/api/auth/oauth2/token`
 * (spec 2.6, 5). The secret goes in the form body only.
 *
 * @throws InvalidCredentialsError when the endpoint refuses the client (unknown ID or wrong secret
 *   alike), ProblemError 502/504 when the endpoint fails, answers something unreadable or redirects.
 */
export async function requestToken(
  http: UpstreamHttp,
  authUrl: string,
  credentials: { clientId: string; clientSecret: string },
): Promise<TokenResponse> {
  const url = `${authUrl}${TOKEN_PATH}`;
  const response = await http.send({
    method: 'POST',
    url,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret,
    }).toString(),
  });

  if (response.statusCode >= 300 && response.statusCode < 400) {
    await discard(response.body);
    throw tokenEndpointProblem('answered with a redirect, which is not followed');
  }
  const jsonBody = isJsonMediaType(mediaType(response.headers));
  let text: string;
  try {
    text = await readCapped(response.body);
  } catch (error) {
    throw transportProblem(error, url);
  }
  const json = jsonBody ? safeJson(text) : undefined;

  if (response.statusCode === 200) {
    const token = TokenResponseSchema.safeParse(json);
    if (!token.success) throw tokenEndpointProblem('answered with an unreadable token');
    return token.data;
  }
  const oauthError = OAuthErrorBodySchema.safeParse(json);
  if (
    (response.statusCode === 400 || response.statusCode === 401) &&
    oauthError.success &&
    CREDENTIAL_ERRORS.has(oauthError.data.error)
  )
    throw new InvalidCredentialsError('the token endpoint refused the client credentials');
  if (response.statusCode === 401) throw new InvalidCredentialsError('the token endpoint said 401');
  throw tokenEndpointProblem(
    `failed with HTTP ${response.statusCode}${oauthError.success ? ` (${oauthError.data.error})` : ''}`,
    response.statusCode === 429 || response.statusCode === 503 ? response.statusCode : 502,
  );
}

function tokenEndpointProblem(what: string, status = 502): ProblemError {
  return new ProblemError(
    status,
    'token_endpoint_error',
    `The upstream's token endpoint ${what}. Try again in a moment; if it persists, the upstream is having trouble.`,
  );
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
