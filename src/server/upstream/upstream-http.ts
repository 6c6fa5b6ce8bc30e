import { Transform, type Readable } from 'node:stream';
import { Agent, type Dispatcher } from 'undici';
import { ProblemError } from '../http/problem.ts';

/** Headers, and between body chunks: a hung upstream must not hold a request or a lease long. */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 10_000;
/** docs/architecture.md, Budgets. */
export const MAX_PASS_THROUGH_BYTES = 8 * 1024 * 1024;
export const MAX_PARSED_BYTES = 256 * 1024;

/** `url` is built only from allowlisted parts. */
export interface UpstreamRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export type UpstreamResponse = Dispatcher.ResponseData;

/**
 * The only HTTP client towards the upstream: redirects never followed, transport failures as
 * problems that name the host but no secret.
 */
export class UpstreamHttp {
  readonly #agent: Agent;
  readonly #timeoutMs: number;

  constructor(options: { timeoutMs?: number } = {}) {
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
    this.#agent = new Agent({
      connections: 128,
      keepAliveTimeout: 10_000,
      headersTimeout: this.#timeoutMs + 1_000,
      bodyTimeout: this.#timeoutMs,
      connectTimeout: this.#timeoutMs,
      // Stay on HTTP/1.1 (undici 8 would negotiate HTTP/2): the pool and timeouts are tuned for it.
      allowH2: false,
    });
  }

  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  /**
   * The headers timer is our own: undici's are up to a second late.
   *
   * @throws ProblemError 502 `upstream_unreachable` or 504 `upstream_timeout`.
   */
  async send(upstream: UpstreamRequest): Promise<UpstreamResponse> {
    const signal = new HeadersTimeoutSignal();
    const timer = setTimeout(fireTimeout, this.#timeoutMs, signal);
    try {
      return await this.#agent.request({
        ...splitUrl(upstream.url),
        method: upstream.method,
        headers: upstream.headers,
        body: upstream.body ?? null,
        // undici 8 reads only `once` and `removeListener` of a signal without `aborted`.
        signal: signal as unknown as Dispatcher.RequestOptions['signal'],
      });
    } catch (error) {
      throw transportProblem(
        signal.fired ? { code: 'UND_ERR_HEADERS_TIMEOUT' } : error,
        upstream.url,
      );
    } finally {
      clearTimeout(timer);
    }
  }

  close(): Promise<void> {
    return this.#agent.close();
  }
}

/** The least signal undici takes: no EventTarget per request (bench CPU profile). */
class HeadersTimeoutSignal {
  fired = false;
  listener: (() => void) | undefined;

  on(_event: 'abort', listener: () => void): this {
    this.listener = listener;
    return this;
  }
  once(event: 'abort', listener: () => void): this {
    return this.on(event, listener);
  }
  removeListener(): this {
    this.listener = undefined;
    return this;
  }
}

function fireTimeout(signal: HeadersTimeoutSignal): void {
  signal.fired = true;
  signal.listener?.();
}

export function splitUrl(url: string): { origin: string; path: string } {
  const slash = url.indexOf('/', url.indexOf('//') + 2);
  return slash === -1
    ? { origin: url, path: '/' }
    : { origin: url.slice(0, slash), path: url.slice(slash) };
}

const TIMEOUT_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'ABORT_ERR',
]);

/** Keeps only the host in the words. */
export function transportProblem(error: unknown, url: string): ProblemError {
  if (error instanceof ProblemError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const host = safeHost(url);
  if (typeof code === 'string' && TIMEOUT_CODES.has(code))
    return new ProblemError(
      504,
      'upstream_timeout',
      `The upstream at ${host} did not answer in time. Try again in a moment.`,
    );
  return new ProblemError(
    502,
    'upstream_unreachable',
    `The upstream at ${host} could not be reached. Try again in a moment.`,
  );
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the upstream';
  }
}

export function mediaType(headers: UpstreamResponse['headers']): string {
  const value = headers['content-type'];
  const text = Array.isArray(value) ? value[0] : value;
  // Runs on every proxied call.
  if (text === 'application/json' || text === 'application/json; charset=utf-8')
    return 'application/json';
  return (text ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

export function isJsonMediaType(type: string): boolean {
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

/** @throws ProblemError 502 `upstream_body_too_large` past the cap. */
export function readCapped(body: Readable, maxBytes = MAX_PARSED_BYTES): Promise<string> {
  // No async iterator per read (bench CPU profile).
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    body.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
      else if (!settled) {
        settled = true;
        reject(bodyTooLarge());
        body.destroy();
      }
    });
    body.once('error', (error) => {
      settled = true;
      reject(error);
    });
    body.once('end', () => {
      settled = true;
      resolve((chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))?.toString('utf8') ?? '');
    });
    // Destroyed without 'end' or 'error': fail as `for await` would.
    body.once('close', () => {
      if (!settled)
        reject(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    });
  });
}

export function capStream(maxBytes = MAX_PASS_THROUGH_BYTES): Transform {
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size > maxBytes) callback(bodyTooLarge());
      else callback(null, chunk);
    },
  });
}

function bodyTooLarge(): ProblemError {
  return new ProblemError(
    502,
    'upstream_body_too_large',
    "The upstream answered with a body larger than is accepted from it. Ask for a shorter time range; if it persists, report it to the upstream's support.",
  );
}

/** So its connection can be reused. */
export async function discard(body: UpstreamResponse['body']): Promise<void> {
  await body.dump({ limit: MAX_PARSED_BYTES }).catch(() => undefined);
}
