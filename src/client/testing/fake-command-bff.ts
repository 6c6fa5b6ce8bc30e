import { isActiveStatus, type StatusRecord } from '#domain/command.ts';
import type { Site } from '#domain/device.ts';
import { historyRangeProblem } from '#domain/history.ts';
import type { LedgerEntry } from '#domain/ledger.ts';
import type { QueuedChangeStatus } from '#domain/queued-change.ts';
import { json, problem, stubFetch, type RecordedRequest } from './fake-fetch.ts';

interface FakeCommandBffOptions {
  sites: Site[];
  /** Commands the upstream holds at the start, of any device of `sites`. */
  commands?: StatusRecord[];
  /** What `GET /api/ledger` answers (filters are not applied). */
  ledger?: LedgerEntry[];
  /** The instant written as `receivedAt`, `cancelledAt` and the submission's `timestamp`. */
  nowIso: string;
  /** What `GET /api/session` answers; a credentials sign-in of `demo-eu` unless given. */
  session?: object;
  /**
   * The queued changes `GET /api/changes` lists (`waiting=true`: those queued or sending); a
   * `DELETE /api/changes/{id}` of a queued one marks it withdrawn.
   */
  changes?: QueuedChangeStatus[];
  /**
   * How many submissions first answer 503 `outcome_unknown` (an outage: nothing stored, a
   * `Retry-After` of 1 s), before they are taken as usual.
   */
  lostSubmissions?: number;
  /**
   * Submissions are queued, as when the device's calls are spent: each answers 202 `queued` and
   * adds a queued change (`chg_1`, `chg_2`, …) that `GET /api/changes/{id}` answers as it stands
   * (the test changes it through the returned `changes`).
   */
  queueSubmissions?: boolean;
}

const windowMeets = (record: StatusRecord, startMs: number, endMs: number) =>
  Date.parse(record.startTime) < endMs && Date.parse(record.endTime) > startMs;

/**
 * A signed-in fake BFF that keeps device commands the way the product API does: the history
 * query answers the commands whose window meets its range (at most 30 days, else 400), a
 * submission adds a received command, a cancel cancels it (`manuallyCancel`) and answers the
 * cancellation, a batch cancel cancels the batch's active commands and answers one result per
 * command, a status query answers the record; the queued changes are listed and withdrawn.
 * Every request is recorded.
 */
export function fakeCommandBff({
  sites,
  commands = [],
  ledger = [],
  nowIso,
  session = { region: 'eu', clientId: 'demo-eu' },
  changes = [],
  lostSubmissions = 0,
  queueSubmissions = false,
}: FakeCommandBffOptions) {
  let toLose = lostSubmissions;
  const queued = changes.map((change) => ({ ...change }));
  // Copies: a cancel changes the held record, never the caller's fixture another test reuses.
  const held = commands.map((command) => ({ ...command }));
  let next = 1;
  const cancelNow = (command: StatusRecord) =>
    Object.assign(command, {
      status: 'cancelled',
      cancelledAt: nowIso,
      cancelReason: 'manuallyCancel',
    });
  const requests = stubFetch((request: RecordedRequest) => {
    const route = `${request.method} ${request.path}`;
    if (route === 'GET /api/session') return json(200, session);
    if (route === 'GET /api/sites') return json(200, { sites });
    if (route === 'GET /api/ledger') return json(200, { entries: ledger });
    if (route === 'GET /api/changes') {
      const waiting = request.search.get('waiting') === 'true';
      return json(200, {
        changes: queued.filter((c) => !waiting || c.state === 'queued' || c.state === 'sending'),
      });
    }
    const one = /^GET \/api\/changes\/([\w-]+)$/.exec(route);
    const found = queued.find((c) => c.id === one?.[1]);
    if (one) return found ? json(200, found) : problem(404, 'change_not_found', 'No such change.');
    const withdrawn = /^DELETE \/api\/changes\/([\w-]+)$/.exec(route);
    if (withdrawn) {
      const change = queued.find((c) => c.id === withdrawn[1]);
      if (change?.state !== 'queued')
        return problem(409, 'change_not_withdrawable', 'It has started sending.');
      Object.assign(change, { state: 'withdrawn', goesAt: undefined });
      return json(200, { change });
    }

    const history = /^GET \/api\/devices\/([\w-]+)\/commands$/.exec(route);
    if (history) {
      const startMs = Date.parse(request.search.get('startTime') ?? '');
      const endMs = Date.parse(request.search.get('endTime') ?? '');
      const refused = historyRangeProblem(startMs, endMs);
      if (refused) return problem(400, 'invalid_request', refused);
      return json(200, {
        commands: held.filter((c) => c.deviceId === history[1] && windowMeets(c, startMs, endMs)),
      });
    }

    const submit = /^POST \/api\/devices\/([\w-]+)\/commands$/.exec(route);
    if (submit?.[1]) {
      if (toLose > 0) {
        toLose -= 1;
        const lost = problem(503, 'outcome_unknown', 'The vendor did not answer in time.');
        lost.headers.set('retry-after', '1');
        return lost;
      }
      const body = request.body as Pick<StatusRecord, 'powerControl' | 'startTime' | 'endTime'>;
      if (queueSubmissions) {
        const changeId = `chg_${queued.length + 1}`;
        const goesAt = new Date(Date.parse(nowIso) + 40_000).toISOString();
        queued.push({
          id: changeId,
          kind: 'submit',
          state: 'queued',
          deviceIds: [submit[1]],
          steps: [
            {
              call: 'submit',
              deviceIds: [submit[1]],
              state: 'waiting',
              plannedAt: goesAt,
              command: body,
            },
          ],
          goesAt,
          createdAt: nowIso,
          updatedAt: nowIso,
        });
        return json(202, {
          queued: { changeId, goesAt, reason: 'no_slot', deviceIds: [submit[1]] },
        });
      }
      const id = `cmd_${next++}`;
      held.push({ ...body, id, deviceId: submit[1], status: 'received', receivedAt: nowIso });
      return json(202, { id, message: 'accepted', timestamp: nowIso });
    }

    const batchCancel = /^PUT \/api\/batches\/([\w-]+)\/cancel$/.exec(route);
    if (batchCancel) {
      const results = held
        .filter((c) => c.batchCommandId === batchCancel[1])
        .map((c) => {
          const success = isActiveStatus(c.status);
          if (success) cancelNow(c);
          return { deviceId: c.deviceId, commandId: c.id, success, status: c.status };
        });
      return json(200, { batchCommandId: batchCancel[1], results });
    }

    const cancel = /^PUT \/api\/devices\/([\w-]+)\/commands\/([\w-]+)\/cancel$/.exec(route);
    const cancelled = held.find((c) => c.deviceId === cancel?.[1] && c.id === cancel[2]);
    if (cancelled) {
      cancelNow(cancelled);
      return json(200, {
        deviceId: cancelled.deviceId,
        commandId: cancelled.id,
        status: 'cancelled',
        cancelledAt: nowIso,
        cancelReason: 'manuallyCancel',
      });
    }

    const status = /^GET \/api\/devices\/([\w-]+)\/commands\/([\w-]+)$/.exec(route);
    const polled = held.find((c) => c.deviceId === status?.[1] && c.id === status[2]);
    if (polled) return json(200, polled);
    return problem(404, 'not_found', `no route ${route}`);
  });
  return { requests, commands: held, changes: queued };
}
