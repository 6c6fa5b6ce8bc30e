import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** docs/architecture.md, Running it. */
export const SESSION_KEY_FILE = 'session.key';

/**
 * AES-256-GCM (docs/security.md), a fresh IV per value; the associated data binds a ciphertext to
 * its row. Sealed form: base64url of `iv | tag | ciphertext`.
 */
export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== KEY_BYTES) throw new Error('the session key must be 32 bytes');
    this.#key = key;
  }

  seal(plaintext: string, associatedData: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url');
  }

  /** @throws Error when the value was not sealed with this key and associated data. */
  open(sealed: string, associatedData: string): string {
    const bytes = Buffer.from(sealed, 'base64url');
    const iv = bytes.subarray(0, IV_BYTES);
    const tag = bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', this.#key, iv);
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([
      decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  }
}

/** 64 hex digits or base64/base64url. @throws Error saying how to make a valid key. */
export function decodeSessionKey(value: string): Buffer {
  const text = value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) {
    const key = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (key.length === KEY_BYTES) return key;
  }
  throw new Error(
    'SESSION_KEY must be 32 random bytes as 64 hex digits or base64, e.g. `openssl rand -base64 32`',
  );
}

/** Else `DATA_DIR/session.key`, generated owner-only on first start. */
export async function loadSessionKey(options: {
  sessionKey?: string | undefined;
  dataDir?: string | undefined;
}): Promise<Buffer> {
  if (options.sessionKey) return decodeSessionKey(options.sessionKey);
  if (!options.dataDir) return randomBytes(KEY_BYTES);
  const file = path.join(options.dataDir, SESSION_KEY_FILE);
  const existing = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (existing !== undefined) return decodeSessionKey(existing);
  await mkdir(options.dataDir, { recursive: true });
  const key = randomBytes(KEY_BYTES);
  try {
    await writeFile(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      return decodeSessionKey(await readFile(file, 'utf8'));
    throw error;
  }
  await chmod(file, 0o600);
  return key;
}
