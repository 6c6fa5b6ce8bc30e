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
  cancellReason: 'manuallyCancel',
};

const error = (errorCode: string) => ({
  errorCode,
  message: 'x',
  timestamp: '2026-11-21T01:30:00.000Z',
});

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

  it('refuses a misnamed or extra field: the published dialect spells cancellReason', () => {
    const { cancellReason, ...rest } = cancelledRecord;
    const problems = validator.problems(statusQuery({ ...rest, cancelReason: cancellReason }));
    expect(problems.join('\n')).toMatch(/cancellReason/);
    expect(problems.join('\n')).toMatch(/additional/);
  });

  it('applies the 2020-12 if/then rules: a completed record needs startedAt and completedAt', () => {
    const completed: Record<string, unknown> = { ...cancelledRecord, status: 'completed' };
    delete completed.cancellReason;
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
    expect(validator.problems(statusQuery(error('TIME_WINDOW_OVERLAP'), 409))).toEqual([
      'commandStatus does not document status 409',
    ]);
  });

  it('refuses an error code that does not belong to the status', () => {
    expect(validator.problems(statusQuery(error('UNAUTHORIZED'), 404))).not.toEqual([]);
  });

  it('requires WWW-Authenticate on 401 and Retry-After on 429', () => {
    const unauthorized = statusQuery(error('UNAUTHORIZED'), 401);
    expect(validator.problems(unauthorized).join('\n')).toMatch(/www-authenticate/);
    expect(
      validator.problems({
        ...unauthorized,
        headers: { ...json, 'www-authenticate': 'Bearer error="invalid_token"' },
      }),
    ).toEqual([]);
    const limited = statusQuery(
      {
        code: 'RATE_LIMIT_EXCEEDED',
        message: 'slow down',
        details: { limit: 2, windowSeconds: 60 },
        timestamp: '2026-11-21T01:30:00.000Z',
      },
      429,
    );
    expect(validator.problems(limited).join('\n')).toMatch(/retry-after/);
    const rateHeaders = {
      'retry-after': '30',
      'x-ratelimit-limit': '2',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '30',
    };
    expect(validator.problems({ ...limited, headers: { ...json, ...rateHeaders } })).toEqual([]);
  });

  it('refuses the project’s retired error shape, and a body that is not JSON', () => {
    expect(validator.problems(statusQuery({ code: 'not_found', message: 'x' }, 404))).not.toEqual(
      [],
    );
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
        method: 'POST',
        path: '/devices/commands/batch',
        status: 202,
        headers: json,
        bodyText: '{}',
      }),
    ).toEqual(['no operation documents POST /devices/commands/batch']);
  });
});
