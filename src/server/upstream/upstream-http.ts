import { Transform, type Readable } from 'node:stream';
import { Agent, type Dispatcher } from 'undici';
import { ProblemError } from '../http/problem.ts';

/**
 * How long the BFF waits for an upstream's headers, and between body chunks: a hung upstream must
 * not hold a browser's request (or a ledger entry's lease) for long.
 */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 10_000;
/**
 * Largest upstream body streamed through to the browser (docs/architecture.md, Budgets:
 * size-capped).
 */
export const MAX_PASS_THROUGH_BYTES = 8 * 1024 * 1024;
/** Largest upstream body the BFF reads to use itself (errors, token, outcomes). */
export const MAX_PARSED_BYTES = 256 * 1024;

/** One upstream request; `url` is absolute, built only from allowlisted parts. */
export interface UpstreamRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** Status, headers and the unread body of an upstream answer. */
export type UpstreamResponse = Dispatcher.ResponseData;

/**
 * The BFF's only HTTP client towards the upstream: one keep-alive agent, timeouts on headers and
 * body, redirects never followed (undici's `request` follows none), transport failures turned
 * into problems (502 unreachable, 504 timeout) that name the region's host but no secret.
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
      // undici 8 would negotiate HTTP/2 with a TLS upstream by default. Stay on HTTP/1.1, which
      // the pool size and timeouts above are chosen for and the only protocol tested here (the
      // sandbox speaks plain HTTP).
      allowH2: false,
    });
  }

  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  /**
   * Sends one request; the answer's headers must arrive within the timeout (a timer of our own:
   * undici's timers are coarse, up to a second late), the body then streams under undici's
   * body timeout.
   *
   * The request goes to the agent with origin and path apart (no URL object parsed per request),
   * and the timer aborts through a {@link HeadersTimeoutSignal}: both are cheaper per request
   * than undici's `request(url)` and an AbortController (bench CPU profile).
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
        // undici 8 types `signal` as AbortSignal | EventEmitter, but reads only `once` and
        // `removeListener` of one that has no `aborted` (addAbortListener in its core/util.js).
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

/**
 * The least abort signal undici takes (it accepts any object with `on`, `once` and
 * `removeListener` in place of an AbortSignal, and listens for one 'abort'): no EventTarget nor
 * EventEmitter made per upstream request.
 */
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

/** Timer callback without a closure per request: aborts the request waiting on `signal`. */
function fireTimeout(signal: HeadersTimeoutSignal): void {
  signal.fired = true;
  signal.listener?.();
}

/**
 * `http://host:port/base/path?query` as origin and path (from the first `/` after the host).
 * The URL is built by the BFF from a configured base URL and validated parts only.
 */
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

/** Maps a transport failure of `url` to a problem; keeps only the host in the words. */
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

/** The media type of a response, lower case without parameters, or '' when absent. */
export function mediaType(headers: UpstreamResponse['headers']): string {
  const value = headers['content-type'];
  const text = Array.isArray(value) ? value[0] : value;
  // The upstream's usual answer, without splitting it (this runs on every proxied call).
  if (text === 'application/json' || text === 'application/json; charset=utf-8')
    return 'application/json';
  return (text ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** True for `application/json` and `application/*+json` (problem+json included). */
export function isJsonMediaType(type: string): boolean {
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

/**
 * Reads an upstream body up to `maxBytes` as text.
 *
 * @throws ProblemError 502 `upstream_body_too_large` past the cap (the rest is discarded).
 */
export function readCapped(body: Readable, maxBytes = MAX_PARSED_BYTES): Promise<string> {
  // Data events rather than `for await`: no async iterator per read (bench CPU profile).
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
    // Destroyed without 'end' or 'error': fail as `for await` would (no Error made otherwise).
    body.once('close', () => {
      if (!settled)
        reject(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    });
  });
}

/**
 * A pass-through stream that fails once more than `maxBytes` have flowed (docs/architecture.md,
 * Budgets).
 */
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

/** Discards the rest of a body so its connection can be reused. */
export async function discard(body: UpstreamResponse['body']): Promise<void> {
  await body.dump({ limit: MAX_PARSED_BYTES }).catch(() => undefined);
}
