import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readCapped } from '../upstream/upstream-http.ts';

describe('reading an upstream body the BFF uses', () => {
  it('joins the chunks as UTF-8 text', async () => {
    const body = Readable.from([Buffer.from('{"a":"é'), Buffer.from('"}')]);
    await expect(readCapped(body, 64)).resolves.toBe('{"a":"é"}');
  });

  it('refuses a body past the cap and stops reading it', async () => {
    const body = Readable.from([Buffer.alloc(40), Buffer.alloc(40)]);
    await expect(readCapped(body, 64)).rejects.toMatchObject({
      problem: { code: 'upstream_body_too_large' },
    });
    expect(body.destroyed).toBe(true);
  });

  it('fails when the body breaks off, with the error or without one', async () => {
    const failing = new PassThrough();
    const failed = readCapped(failing);
    failing.write('{"a":');
    failing.destroy(new Error('socket reset'));
    await expect(failed).rejects.toThrow('socket reset');

    const cut = new PassThrough();
    const closed = readCapped(cut);
    cut.write('{"a":');
    cut.destroy();
    await expect(closed).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
  });
});
