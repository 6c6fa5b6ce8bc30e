import { beforeAll, describe, expect, it } from 'vitest';
import { OpenApiResponseValidator, type Exchange } from '../openapi-response-validator.ts';

const json = { 'content-type': 'application/json; charset=utf-8' };

const cancelledRecord = {
  id: 'cmd-1',
  deviceId: 'BAT-EU-001-A',
  powerControl: { targetBatteryPowerW: -3000 },
  startTime: '2026-11-21T02:00:00Z',
  endTime: '2026-11-21T05:00:00Z',
  status: 'cancelled',
  receivedAt: '2026-11-21T01:00:00.000Z',
  cancelledAt: '2026-11-21T01:30:00.000Z',
  cancelReason: 'manuallyCancel',
};

const statusQuery = (body: unknown, status = 200, headers = json): Exchange => ({
  method: 'GET',
  path: '/devices/BAT-EU-001-A/commands/cmd-1',
  status,
  headers,
  bodyText: JSON.stringify(body),
});

let validator: OpenApiResponseValidator;
beforeAll(async () => {
  validator = await OpenApiResponseValidator.load();
});

describe('OpenApiResponseValidator', () => {
  it('accepts a status record that follows the document', () => {
    expect(validator.problems(statusQuery(cancelledRecord))).toEqual([]);
  });

  it('refuses a misnamed or extra field', () => {
    const { cancelReason, ...rest } = cancelledRecord;
    const problems = validator.problems(statusQuery({ ...rest, cancellationReason: cancelReason }));
    expect(problems.join('\n')).toMatch(/cancelReason/);
    expect(problems.join('\n')).toMatch(/cancellationReason/);
  });

  it('applies the 2020-12 if/then rules: a completed record needs startedAt and completedAt', () => {
    const completed: Record<string, unknown> = { ...cancelledRecord, status: 'completed' };
    delete completed.cancelReason;
    delete completed.cancelledAt;
    const problems = validator.problems(statusQuery(completed));
    expect(problems.join('\n')).toMatch(/startedAt/);
  });

  it('refuses a timestamp that is not UTC', () => {
    const problems = validator.problems(
      statusQuery({ ...cancelledRecord, receivedAt: '2026-11-21T01:00:00+01:00' }),
    );
    expect(problems).not.toEqual([]);
  });

  it('refuses a status the operation does not document', () => {
    expect(validator.problems(statusQuery({ code: 'window_overlap', message: 'x' }, 409))).toEqual([
      'queryCommandStatus does not document status 409',
    ]);
  });

  it('refuses an error code that does not belong to the status', () => {
    expect(validator.problems(statusQuery({ code: 'not_found', message: 'x' }, 403))).not.toEqual(
      [],
    );
  });

  it('requires WWW-Authenticate on 401 and Retry-After on 429', () => {
    const unauthorized = statusQuery({ code: 'invalid_token', message: 'expired' }, 401);
    expect(validator.problems(unauthorized).join('\n')).toMatch(/www-authenticate/);
    expect(
      validator.problems({
        ...unauthorized,
        headers: { ...json, 'www-authenticate': 'Bearer error="invalid_token"' },
      }),
    ).toEqual([]);
    const limited = statusQuery({ code: 'rate_limited', message: 'slow down' }, 429);
    expect(validator.problems(limited).join('\n')).toMatch(/retry-after/);
  });

  it('refuses a body where the document declares none, and a body that is not JSON', () => {
    const unbind = { method: 'DELETE', path: '/sites', status: 204, headers: {}, bodyText: '' };
    expect(validator.problems(unbind)).toEqual([]);
    expect(validator.problems({ ...unbind, bodyText: '{}' })).not.toEqual([]);
    expect(
      validator.problems({
        ...statusQuery(cancelledRecord),
        headers: { 'content-type': 'text/html' },
      }),
    ).not.toEqual([]);
  });

  it('refuses a path the document does not describe', () => {
    expect(
      validator.problems({
        method: 'GET',
        path: '/devices',
        status: 200,
        headers: json,
        bodyText: '{}',
      }),
    ).toEqual(['no operation documents GET /devices']);
  });
});
