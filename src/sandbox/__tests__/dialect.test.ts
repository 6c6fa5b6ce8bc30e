import { describe, expect, it } from 'vitest';
import { parseDialectVariable, PUBLISHED_DIALECT } from '../vendor/dialect.ts';
import {
  CamelTokenAnswerSchema,
  EnvelopeSchema,
  ErrorBodySchema,
  SiteListSchema,
  StatusRecordSchema,
  SubmissionAnswerSchema,
} from '../vendor/schemas.ts';
import {
  EU,
  HOUR_MS,
  iso,
  startHarness,
  useSandboxHarness,
  WALL_MS,
} from './support/sandbox-harness.ts';

const sandbox = useSandboxHarness();

const form = {
  grant_type: 'client_credentials',
  client_id: 'demo-eu',
  client_secret: 'demo-eu-secret',
};
const window = { startTime: iso(WALL_MS + HOUR_MS), endTime: iso(WALL_MS + 2 * HOUR_MS) };

/** A cancelled command of BAT-EU-001-A, and the token that reads it, a minute later. */
async function cancelledCommand(): Promise<{ token: string; url: string }> {
  const token = await sandbox.boundToken('PLANT-EU-001');
  const submitted = await sandbox.call('POST', `${EU}/device/BAT-EU-001-A/commands`, {
    token,
    json: { powerControl: { targetBatteryPowerW: 1000 }, ...window },
  });
  const { id } = SubmissionAnswerSchema.parse(submitted.body);
  const url = `${EU}/devices/BAT-EU-001-A/commands/${id}`;
  await sandbox.call('PUT', `${url}/cancel`, { token });
  // Two calls about the device so far: a minute on, the test's reads have the slots back.
  await sandbox.nextMinute();
  return { token, url };
}

describe('dialects (docs/upstream.md, Dialects)', () => {
  it('speaks the published dialect until told otherwise, and reports it', async () => {
    expect((await sandbox.admin('GET', '/dialect')).body).toEqual(PUBLISHED_DIALECT);
    expect(PUBLISHED_DIALECT).toEqual({
      envelope: false,
      tokenShape: 'snake',
      reasonField: 'cancellReason',
    });
  });

  it('envelope: wraps every business answer as { code, msg, data }, errors with data null', async () => {
    const token = await sandbox.boundToken('PLANT-EU-001');
    expect((await sandbox.admin('PUT', '/dialect', { envelope: true })).body).toMatchObject({
      envelope: true,
    });
    const sites = await sandbox.call('GET', `${EU}/sites`, { token });
    const wrapped = EnvelopeSchema.parse(sites.body);
    expect(wrapped).toMatchObject({ code: 200, msg: 'success' });
    expect(SiteListSchema.parse(wrapped.data).total).toBe(1);

    const submitted = await sandbox.call('POST', `${EU}/device/BAT-EU-001-A/commands`, {
      token,
      json: { powerControl: { targetBatteryPowerW: 1000 }, ...window },
    });
    expect(submitted.status).toBe(202);
    const accepted = EnvelopeSchema.parse(submitted.body);
    expect(accepted).toMatchObject({ code: 202, msg: 'Command accepted' });
    SubmissionAnswerSchema.parse(accepted.data);

    for (const [status, url, options] of [
      [404, `${EU}/devices/BAT-EU-002-A`, { token }],
      [401, `${EU}/sites`, {}],
      [400, `${EU}/sites?page=0`, { token }],
      [404, `${EU}/no-such-operation`, { token }],
    ] as const) {
      const response = await sandbox.call('GET', url, options);
      expect(response.status, url).toBe(status);
      expect(EnvelopeSchema.parse(response.body)).toEqual({
        code: status,
        msg: expect.any(String),
        data: null,
      });
    }
  });

  it('envelope: leaves the token endpoint and the admin API alone', async () => {
    await sandbox.admin('PUT', '/dialect', { envelope: true });
    const token = await sandbox.tokenRequest('eu', form);
    expect(token.body).toHaveProperty('access_token');
    const refused = await sandbox.tokenRequest('eu', { ...form, client_secret: 'wrong' });
    expect(refused.body).toMatchObject({ error: 'invalid_client' });
    expect((await sandbox.admin('GET', '/clock')).body).toEqual({ now: iso(WALL_MS) });
  });

  it('tokenShape camel: answers the OpenAPI TokenResponse, and its access token works', async () => {
    await sandbox.admin('PUT', '/dialect', { tokenShape: 'camel' });
    const response = await sandbox.tokenRequest('eu', form);
    expect(response.status).toBe(200);
    const answer = CamelTokenAnswerSchema.parse(response.body);
    expect(Object.keys(response.body as object).sort()).toEqual([
      'accessToken',
      'expiresIn',
      'refreshToken',
      'tokenType',
    ]);
    expect(answer.expiresIn).toBe(86_400);
    const sites = await sandbox.call('GET', `${EU}/sites`, { token: answer.accessToken });
    expect(sites.status).toBe(200);
  });

  it.each([
    ['cancellReason', { cancellReason: 'manuallyCancel' }, ['cancelReason']],
    ['cancelReason', { cancelReason: 'manuallyCancel' }, ['cancellReason']],
    ['both', { cancellReason: 'manuallyCancel', cancelReason: 'manuallyCancel' }, []],
  ] as const)(
    'reasonField %s: names the cancellation reason so in status and history',
    async (reasonField, present, absent) => {
      const { token, url } = await cancelledCommand();
      await sandbox.admin('PUT', '/dialect', { reasonField });
      const record = (await sandbox.call('GET', url, { token })).body as Record<string, unknown>;
      expect(record).toMatchObject({ status: 'cancelled', ...present });
      for (const field of absent) expect(record).not.toHaveProperty(field);
      const history = await sandbox.call(
        'GET',
        `${EU}/device/BAT-EU-001-A/commands?startTime=${window.startTime}&endTime=${window.endTime}`,
        { token },
      );
      expect((history.body as { commands: unknown[] }).commands[0]).toEqual(record);
    },
  );

  it('PUT replaces the whole dialect; reset goes back to the start dialect', async () => {
    await sandbox.admin('PUT', '/dialect', { envelope: true, reasonField: 'both' });
    expect((await sandbox.admin('PUT', '/dialect', { tokenShape: 'camel' })).body).toEqual({
      ...PUBLISHED_DIALECT,
      tokenShape: 'camel',
    });
    await sandbox.admin('POST', '/reset');
    expect((await sandbox.admin('GET', '/dialect')).body).toEqual(PUBLISHED_DIALECT);
    const { token, url } = await cancelledCommand();
    StatusRecordSchema.strict().parse((await sandbox.call('GET', url, { token })).body);
  });

  it('refuses a bad dialect with 400 naming the field', async () => {
    for (const body of [{ envelope: 'yes' }, { tokenShape: 'kebab' }, { reasons: 'both' }]) {
      const response = await sandbox.admin('PUT', '/dialect', body);
      expect(response.status).toBe(400);
      expect(ErrorBodySchema.parse(response.body).errorCode).toBe('INVALID_REQUEST');
    }
  });

  it('starts with the dialect of SANDBOX_DIALECT and goes back to it on reset', async () => {
    const started = await startHarness({
      dialect: parseDialectVariable('envelope=on, reasonField=both'),
    });
    try {
      await started.admin('PUT', '/dialect', {});
      await started.admin('POST', '/reset');
      expect((await started.admin('GET', '/dialect')).body).toEqual({
        envelope: true,
        tokenShape: 'snake',
        reasonField: 'both',
      });
    } finally {
      await started.close();
    }
  });
});

describe('SANDBOX_DIALECT', () => {
  it('reads comma-separated key=value pairs; empty is the published dialect', () => {
    expect(parseDialectVariable(undefined)).toEqual(PUBLISHED_DIALECT);
    expect(parseDialectVariable('')).toEqual(PUBLISHED_DIALECT);
    expect(parseDialectVariable('envelope=on,tokenShape=camel,reasonField=cancelReason')).toEqual({
      envelope: true,
      tokenShape: 'camel',
      reasonField: 'cancelReason',
    });
  });

  it.each(['envelope', 'envelope=yes', 'tokenShape=kebab', 'colour=blue', 'a=b=c'])(
    'refuses %j naming what is wrong',
    (text) => {
      expect(() => parseDialectVariable(text)).toThrow(/SANDBOX_DIALECT/);
    },
  );
});
