import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OAuthError, SandboxError } from '../sandbox-error.ts';

/** A 50-device batch is about 4 KiB. */
export const BODY_LIMIT_BYTES = 64 * 1024;

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
 * Fastify's own 4xx refusals answer as 400 `INVALID_REQUEST`, so bad input never gets another
 * shape; an empty JSON body reads as no body, so a bodiless PUT or DELETE still works.
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

export function noRoute(request: FastifyRequest): SandboxError {
  return new SandboxError(
    'NOT_FOUND',
    `There is no operation ${request.method} ${(request.raw.url ?? '/').split('?')[0]}; see docs/upstream.openapi.yaml`,
  );
}
