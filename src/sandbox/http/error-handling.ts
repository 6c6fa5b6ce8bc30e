import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OAuthError, SandboxError } from '../sandbox-error.ts';

/** Largest request body: a 50-device batch is about 4 KiB. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/**
 * Answers a sandbox or token-endpoint error in its JSON shape (docs/upstream.md, Errors, Tokens),
 * stamped with the sandbox clock `nowMs`.
 */
export function sendError(
  reply: FastifyReply,
  error: SandboxError | OAuthError,
  request: FastifyRequest,
  nowMs: number,
): FastifyReply {
  if (error instanceof OAuthError)
    return reply
      .code(error.status)
      .header('cache-control', 'no-store')
      .send({ error: error.error, error_description: error.description });
  if (error.status >= 500) request.log.info({ code: error.code }, error.message);
  return reply.code(error.status).headers(error.headers).send(error.body(nowMs));
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
 * (media type, size, JSON syntax) as 400 `INVALID_REQUEST`, so bad input never gets another
 * shape; anything else logged and answered 500 `INTERNAL_ERROR` without details. Unknown paths:
 * 404 `NOT_FOUND`. Also installs body parsers: JSON (an empty body reads as no body, so a bodiless
 * PUT or DELETE with a JSON content type still works) and the token endpoint's form encoding.
 * `nowMs` is the sandbox clock, which stamps every error.
 */
export function installErrorHandling(app: FastifyInstance, nowMs: () => number): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new SandboxError('INVALID_REQUEST', 'Invalid body: not valid JSON; send a JSON object'));
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
      return sendError(reply, error, request, nowMs());
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500)
      return sendError(
        reply,
        new SandboxError('INVALID_REQUEST', `Invalid ${frameworkMessage(error)}`),
        request,
        nowMs(),
      );
    request.log.error({ err: error }, 'unexpected sandbox error');
    return sendError(
      reply,
      new SandboxError(
        'INTERNAL_ERROR',
        `The sandbox failed unexpectedly (request ${String(request.id)}); see its log`,
      ),
      request,
      nowMs(),
    );
  });

  app.setNotFoundHandler(async (request, reply) =>
    sendError(reply, noRoute(request), request, nowMs()),
  );
}

/** 404 `NOT_FOUND` for a path no operation serves. */
export function noRoute(request: FastifyRequest): SandboxError {
  return new SandboxError(
    'NOT_FOUND',
    `There is no operation ${request.method} ${(request.raw.url ?? '/').split('?')[0]}; see docs/upstream.openapi.yaml`,
  );
}
