import type { FastifyInstance } from 'fastify';
import { z } from 'zod';

/** What the sandbox's admin API answers for its clock (`GET|POST /_sandbox/clock`, `POST /_sandbox/reset`). */
const ClockAnswerSchema = z.object({ now: z.iso.datetime() });

/** Admin calls whose answer carries the sandbox's time after they moved it. */
const CLOCK_MOVES = new Set(['/_sandbox/clock', '/_sandbox/reset']);

/**
 * The sandbox's clock for the BFF's budget of upstream calls (docs/decisions/007-device-call-budget.md,
 * section 1: the budget counts on the upstream's clock), without the BFF importing the sandbox.
 * The sandbox's clock is the wall clock plus an offset that only its admin API moves
 * (src/sandbox/clock.ts: `POST /_sandbox/clock`, `POST /_sandbox/reset`), and each of those
 * answers the new time, so the offset is read once here and again from every such answer. Call it
 * before the sandbox listens (it adds a hook); a sandbox whose admin API is off reads as the wall
 * clock.
 *
 * @returns the sandbox's time, epoch ms; a few milliseconds behind it after a move, never ahead.
 */
export async function followSandboxClock(sandbox: FastifyInstance): Promise<() => number> {
  let offsetMs = 0;
  const learn = (body: unknown) => {
    let json: unknown = body;
    try {
      if (typeof body === 'string') json = JSON.parse(body);
    } catch {
      return;
    }
    const answer = ClockAnswerSchema.safeParse(json);
    if (answer.success) offsetMs = Date.parse(answer.data.now) - Date.now();
  };
  sandbox.addHook('onSend', async (request, reply, payload) => {
    if (request.method === 'POST' && reply.statusCode === 200 && CLOCK_MOVES.has(request.url))
      learn(payload);
    return payload;
  });
  const answer = await sandbox.inject({ method: 'GET', url: '/_sandbox/clock' });
  if (answer.statusCode === 200) learn(answer.body);
  return () => Date.now() + offsetMs;
}
