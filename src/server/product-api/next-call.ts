import type { FastifyInstance } from 'fastify';
import type { WritePath } from './write-path.ts';

/**
 * The answer header that tells a script when the device of the request next has an upstream call
 * free (RFC 3339, UTC, on the upstream's clock: the same clock as a queued answer's `goesAt`).
 *
 * Not the IETF `RateLimit` fields: those describe the caller's own quota in seconds from now,
 * while this budget is the device's, shared by every person, token and read of the account
 * (docs/decisions/007-device-call-budget.md, section 1).
 */
export const NEXT_CALL_HEADER = 'powerdeck-next-call-at';

/** Answers that say nothing about the device: the caller may not know of it. */
const SILENT_STATUSES = new Set([401, 403, 404]);

/**
 * Adds {@link NEXT_CALL_HEADER} to every answer to an API token on a route of the encapsulating
 * plugin whose path names a `deviceId` (docs/automation.md, "The budget"). Answers to the browser
 * go without it: every open tab polls a command's status from memory, and the page learns the
 * budget from the session and the queued changes.
 */
export function announceNextCall(app: FastifyInstance, writePath: WritePath): void {
  // A callback hook that returns at once for a browser's request: no extra promise per request.
  app.addHook('onSend', (request, reply, payload, done) => {
    const session = request.productSession;
    const deviceId = (request.params as { deviceId?: unknown } | undefined)?.deviceId;
    if (
      !request.apiToken ||
      !session ||
      typeof deviceId !== 'string' ||
      SILENT_STATUSES.has(reply.statusCode)
    )
      return done(null, payload);
    writePath.nextCallAtMs(session, deviceId).then(
      (atMs) => {
        reply.header(NEXT_CALL_HEADER, new Date(atMs).toISOString());
        done(null, payload);
      },
      // The answer stands without the header: a change already sent must not look failed.
      (error: unknown) => {
        request.log.warn({ err: error }, 'the next free call of a device could not be read');
        done(null, payload);
      },
    );
  });
}
