import type { FastifyError, FastifyInstance } from 'fastify';
import type { BffProblemCode } from '#domain/problems.ts';
import { ProblemError, sendProblem } from './problem.ts';
import { bodyLimitWords } from './route-declarations.ts';
import { isApiPath } from './request-guards.ts';

/** `bodyLimitBytes` is the route's limit (a fleet job's or plan's is larger than the app's). */
function codeForFrameworkError(
  error: FastifyError,
  bodyLimitBytes: number,
): { code: BffProblemCode; detail: string } {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        code: 'unsupported_media_type',
        detail: 'Send the body as application/json.',
      };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return {
        code: 'body_too_large',
        detail: `The request body is larger than ${bodyLimitWords(bodyLimitBytes)}.`,
      };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { code: 'invalid_json', detail: 'The request body is not valid JSON.' };
    default:
      return { code: 'invalid_request', detail: 'The request is malformed.' };
  }
}

/**
 * Preloaded with the page so the browser reads it while the scripts load; the sign-in page's
 * largest text waits for it (bench `page.lcp_ms`, docs/architecture.md, Budgets).
 */
const PAGE_PRELOADS: Readonly<Record<string, string>> = {
  '/sign-in': '</api/session/mode>; rel=preload; as=fetch; crossorigin',
};

/**
 * Problems go out as they are, Fastify's 4xx as problems with a stable code, anything else as a
 * 500 without details (docs/architecture.md, BFF surface). Unknown pages get the SPA's index.html.
 */
export function installErrorHandling(
  app: FastifyInstance,
  options: { spaFallback: boolean },
): void {
  app.setErrorHandler(async (error: FastifyError | ProblemError, request, reply) => {
    if (error instanceof ProblemError) {
      if (error.problem.status >= 500)
        request.log.warn({ code: error.problem.code }, error.message);
      return sendProblem(reply, error);
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const { code, detail } = codeForFrameworkError(error, request.routeOptions.bodyLimit);
      return sendProblem(reply, new ProblemError(status, code, detail));
    }
    request.log.error({ err: error }, 'unexpected error');
    return sendProblem(
      reply,
      new ProblemError(
        500,
        'internal_error',
        'Something went wrong on the server. Try again; if it persists, report the time and the request ID.',
        {
          headers: { 'x-request-id': String(request.id) },
        },
      ),
    );
  });

  app.setNotFoundHandler(async (request, reply) => {
    const url = request.raw.url ?? '/';
    const wantsPage =
      options.spaFallback &&
      !isApiPath(url) &&
      (request.method === 'GET' || request.method === 'HEAD') &&
      (request.headers.accept ?? '').includes('text/html');
    if (wantsPage) {
      const preload = PAGE_PRELOADS[url.split('?', 1)[0] ?? url];
      if (preload) reply.header('link', preload);
      return reply.type('text/html').header('cache-control', 'no-cache').sendFile('index.html');
    }
    return sendProblem(
      reply,
      new ProblemError(
        404,
        'not_found',
        isApiPath(url)
          ? `There is no API route ${request.method} ${url.split('?')[0]}.`
          : 'Not found.',
      ),
    );
  });
}
