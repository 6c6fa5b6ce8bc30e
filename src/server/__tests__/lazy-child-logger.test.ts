import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loggerOptions } from '#infra/logger.ts';
import { buildServerApp } from '../app.ts';
import { fileDatabase } from './support/bff.ts';

const database = fileDatabase();

/** A BFF logging JSON lines at `level` into an array. */
async function appLogging(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      callback();
    },
  });
  const region = { authUrl: 'http://127.0.0.1:9/eu', baseUrl: 'http://127.0.0.1:9/eu' };
  const app = await buildServerApp({
    upstreams: { eu: region, au: region },
    publicOrigin: 'http://127.0.0.1:8080',
    database: database.handle,
    logger: { ...loggerOptions('bff', level), stream },
  });
  return { app, lines };
}

describe('request logging', () => {
  it('binds the request ID to every line a request writes, redaction kept', async () => {
    const { app, lines } = await appLogging('info');
    const response = await app.inject({
      method: 'GET',
      url: '/api/nope',
      headers: { cookie: 'powerdeck_session=secret-cookie', authorization: 'Bearer t0ken' },
    });
    const requestId = response.headers['x-request-id'];
    const mine = lines.filter((line) => line.reqId === requestId);
    expect(mine.map((line) => line.msg)).toEqual(
      expect.arrayContaining(['incoming request', 'request completed']),
    );
    expect(JSON.stringify(lines)).not.toMatch(/secret-cookie|t0ken/);
    await app.close();
  });

  it('writes nothing below the level', async () => {
    const { app, lines } = await appLogging('error');
    await app.inject({ method: 'GET', url: '/api/nope' });
    expect(lines).toEqual([]);
    await app.close();
  });
});
