import type { FastifyInstance } from 'fastify';
import type { SandboxDialect } from '../vendor/dialect.ts';

/**
 * The `envelope` dialect (docs/upstream.md, Dialects): while it is on, every JSON answer of the
 * routes of `app` is wrapped as `{ code, msg, data }`, `code` the HTTP status; a success carries
 * the usual answer in `data` (`msg` "success", or "Command accepted" for a 202), an error
 * `data: null` with its message in `msg`. Hooked on the business routes only, never the token
 * endpoint, which keeps the OAuth 2.0 shapes.
 */
export function installEnvelope(app: FastifyInstance, dialect: SandboxDialect): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    if (!dialect.current.envelope || typeof payload !== 'string') return payload;
    if (!String(reply.getHeader('content-type') ?? '').startsWith('application/json'))
      return payload;
    const status = reply.statusCode;
    const body: unknown = payload === '' ? null : JSON.parse(payload);
    if (status >= 400) {
      const message = (body as { message?: unknown } | null)?.message;
      return JSON.stringify({
        code: status,
        msg: typeof message === 'string' ? message : 'Error',
        data: null,
      });
    }
    return JSON.stringify({
      code: status,
      msg: status === 202 ? 'Command accepted' : 'success',
      data: body,
    });
  });
}
