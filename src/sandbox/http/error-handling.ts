import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OAuthError, SandboxError } from '../sandbox-error.ts';

/** Largest request body: a 50-device batch is about 4 KiB. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/**
 * Answers a sandbox or token-endpoint error in its JSON shape (docs/architecture.md, Upstream
 * contract).
 */
export function sendError(
  reply: FastifyReply,
  error: SandboxError | OAuthError,
  request: FastifyRequest,
): FastifyReply {
  if (error instanceof OAuthError)
    return reply
      .code(error.status)
      .header('cache-control', 'no-store')
      .send({ error: error.error, error_description: error.description });
  if (error.status >= 500) request.log.info({ code: error.code }, error.message);
  return reply.code(error.status).headers(error.headers).send(error.body());
}

function frameworkMessage(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'body: send the body as application/json';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return `body: larger than ${BODY_LIMIT_BYTES} bytes`;
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return 'body: not valid JSON';
    default:
      return `request: ${error.message}`;
  }
}

/**
 * One error handler (fastify/demo): sandbox errors as they are; Fastify's own 4xx refusals
 * (media type, size, JSON syntax) as 400 `invalid_request`, so bad input never gets another
 * shape; anything else logged and answered 500 `upstream_error` without details. Unknown paths:
 * 404 `not_found`. Also installs body parsers: JSON (an empty body reads as no body, so a
 * bodiless PUT with a JSON content type still works) and the token endpoint's form encoding.
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new SandboxError('invalid_request', 'body: not valid JSON; send a JSON object'));
    }
  });
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => {
      const params = new URLSearchParams(String(body));
      const form: Record<string, string> = {};
      for (const key of new Set(params.keys())) {
        if (params.getAll(key).length > 1)
          return done(new OAuthError(400, 'invalid_request', `${key} must not be repeated`));
        form[key] = params.get(key) ?? '';
      }
      done(null, form);
    },
  );

  app.setErrorHandler(async (error: FastifyError | SandboxError | OAuthError, request, reply) => {
    if (error instanceof SandboxError || error instanceof OAuthError)
      return sendError(reply, error, request);
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500)
      return sendError(
        reply,
        new SandboxError('invalid_request', `Invalid ${frameworkMessage(error)}`),
        request,
      );
    request.log.error({ err: error }, 'unexpected sandbox error');
    return sendError(
      reply,
      new SandboxError(
        'upstream_error',
        `The sandbox failed unexpectedly (request ${String(request.id)}); see its log`,
      ),
      request,
    );
  });

  app.setNotFoundHandler(async (request, reply) =>
    sendError(
      reply,
      new SandboxError(
        'not_found',
        `There is no route ${request.method} ${(request.raw.url ?? '/').split('?')[0]}; see docs/upstream.openapi.yaml`,
      ),
      request,
    ),
  );
}
