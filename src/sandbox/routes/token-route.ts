import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { OAuthError, SandboxError } from '../sandbox-error.ts';
import type { RegionContext } from '../http/region-context.ts';
import { sendError } from '../http/error-handling.ts';
import { TOKEN_PATH, TokenRequestSchema } from '../vendor/schemas.ts';

const digest = (text: string) => createHash('sha256').update(text).digest();
const sameSecret = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

/** The client-credentials grant; errors as RFC 6749 5.2 (docs/upstream.md, Tokens). */
export async function tokenRoute(app: FastifyInstance, context: RegionContext): Promise<void> {
  app.post(TOKEN_PATH, {
    errorHandler: (error: FastifyError | OAuthError | SandboxError, request, reply) => {
      const nowMs = context.state.nowMs();
      if (error instanceof OAuthError) return sendError(reply, error, request, nowMs);
      // Injected 5xx keep the general error shape; other refusals answer as RFC 6749 5.2 requires.
      if (error instanceof SandboxError && error.status >= 500)
        return sendError(reply, error, request, nowMs);
      return sendError(
        reply,
        new OAuthError(
          400,
          'invalid_request',
          error instanceof SandboxError
            ? 'Send grant_type, client_id and client_secret as application/x-www-form-urlencoded, not JSON'
            : `Send grant_type, client_id and client_secret as application/x-www-form-urlencoded (${error.message})`,
        ),
        request,
        nowMs,
      );
    },
    handler: async (request, reply: FastifyReply) => {
      context.faults.beforeTokenRequest();
      const contentType = request.headers['content-type'] ?? '';
      if (!contentType.toLowerCase().startsWith('application/x-www-form-urlencoded'))
        throw new OAuthError(
          400,
          'invalid_request',
          'Send the token request form-encoded: Content-Type application/x-www-form-urlencoded',
        );
      const form = (request.body ?? {}) as Record<string, unknown>;
      if (form.grant_type === undefined || form.grant_type === '')
        throw new OAuthError(400, 'invalid_request', 'grant_type is required: client_credentials');
      const parsed = TokenRequestSchema.safeParse(form);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        if (issue?.path[0] === 'grant_type')
          throw new OAuthError(
            400,
            'unsupported_grant_type',
            `grant_type ${String(form.grant_type)} is not supported; use client_credentials`,
          );
        throw new OAuthError(
          400,
          'invalid_request',
          parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
        );
      }
      const client = context.catalog.client(parsed.data.client_id);
      if (
        !client ||
        client.region !== context.region ||
        !sameSecret(client.clientSecret, parsed.data.client_secret)
      )
        throw new OAuthError(
          401,
          'invalid_client',
          'Client authentication failed: unknown client_id or wrong client_secret for this region',
        );
      const ttlS = context.faults.tokenTtlS;
      const token = await context.state.issueToken(client, ttlS);
      const lifetimeS = context.faults.tokenExpiresIn(ttlS);
      const sent =
        context.dialect.current.tokenShape === 'camel'
          ? {
              accessToken: token,
              // The OpenAPI document's TokenResponse has one; no grant of the sandbox takes it.
              refreshToken: randomBytes(32).toString('base64url'),
              tokenType: 'Bearer',
              expiresIn: lifetimeS,
            }
          : { access_token: token, token_type: 'Bearer', expires_in: lifetimeS };
      return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(sent);
    },
  });
}
