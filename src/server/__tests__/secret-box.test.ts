import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  SESSION_KEY_FILE,
  SecretBox,
  decodeSessionKey,
  loadSessionKey,
} from '../session/secret-box.ts';

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32));

  it('round-trips with fresh IVs and never shows the plaintext', () => {
    const a = box.seal('demo-eu-secret', 'row-1');
    const b = box.seal('demo-eu-secret', 'row-1');
    expect(a).not.toBe(b);
    expect(a).not.toContain('demo-eu-secret');
    expect(box.open(a, 'row-1')).toBe('demo-eu-secret');
  });

  it('refuses another row, another key and a tampered value', () => {
    const sealed = box.seal('demo-eu-secret', 'row-1');
    expect(() => box.open(sealed, 'row-2')).toThrow();
    expect(() => new SecretBox(randomBytes(32)).open(sealed, 'row-1')).toThrow();
    const bytes = Buffer.from(sealed, 'base64url');
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 1, bytes.length - 1);
    expect(() => box.open(bytes.toString('base64url'), 'row-1')).toThrow();
  });
});

describe('the session key', () => {
  it('decodes 64 hex digits and base64, and refuses anything else', () => {
    const key = randomBytes(32);
    expect(decodeSessionKey(key.toString('hex'))).toEqual(key);
    expect(decodeSessionKey(key.toString('base64'))).toEqual(key);
    expect(decodeSessionKey(key.toString('base64url'))).toEqual(key);
    expect(() => decodeSessionKey('password')).toThrow(/SESSION_KEY/);
  });

  it('is generated once into DATA_DIR, owner-only, and reused', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'powerdeck-key-'));
    try {
      const first = await loadSessionKey({ dataDir });
      const file = path.join(dataDir, SESSION_KEY_FILE);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect(decodeSessionKey(await readFile(file, 'utf8'))).toEqual(first);
      expect(await loadSessionKey({ dataDir })).toEqual(first);
      const configured = randomBytes(32);
      expect(await loadSessionKey({ dataDir, sessionKey: configured.toString('hex') })).toEqual(
        configured,
      );
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
