import { Agent } from 'undici';
import { RESPONSE_EXCERPT_CHARS } from '#domain/webhooks.ts';
import { isPrivateLiteral, PRIVATE_ADDRESS_CODE, publicOnlyLookup } from './webhook-address.ts';
import type { WebhookHeaders } from './webhook-signing.ts';

/** How long an endpoint has to answer a delivery, headers and body, ms. */
export const WEBHOOK_TIMEOUT_MS = 10_000;

/** What one attempt learned: the endpoint's answer, or why there was none (in words). */
export interface AttemptResult {
  statusCode?: number | undefined;
  latencyMs: number;
  error?: string | undefined;
  responseExcerpt?: string | undefined;
  /** A 2xx. */
  succeeded: boolean;
}

/** The bytes of an answer read at most: the excerpt is {@link RESPONSE_EXCERPT_CHARS} characters. */
const MAX_READ_BYTES = RESPONSE_EXCERPT_CHARS * 4;

/**
 * Sends deliveries (docs/security.md, Webhooks): POST with undici, {@link WEBHOOK_TIMEOUT_MS}
 * for the whole attempt, redirects never followed (a 3xx is a failed attempt), and, unless an
 * administrator allowed them (`WEBHOOKS_ALLOW_PRIVATE_ADDRESSES`), only to public addresses:
 * every address the host name resolves to is checked where the socket connects.
 */
export class WebhookSender {
  readonly #agent: Agent;
  readonly #allowPrivate: boolean;
  readonly #timeoutMs: number;

  constructor(options: { allowPrivateAddresses: boolean; timeoutMs?: number | undefined }) {
    this.#allowPrivate = options.allowPrivateAddresses;
    this.#timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
    this.#agent = new Agent({
      connections: 16,
      keepAliveTimeout: 10_000,
      headersTimeout: this.#timeoutMs,
      bodyTimeout: this.#timeoutMs,
      connect: {
        timeout: this.#timeoutMs,
        ...(this.#allowPrivate ? {} : { lookup: publicOnlyLookup }),
      },
      allowH2: false,
    });
  }

  /** Never throws: a failure is an attempt result with its reason in words. */
  async send(url: string, headers: WebhookHeaders, body: string): Promise<AttemptResult> {
    const startedMs = performance.now();
    const latency = () => Math.round(performance.now() - startedMs);
    const target = new URL(url);
    if (!this.#allowPrivate && isPrivateLiteral(target))
      return { latencyMs: 0, error: 'the address is private', succeeded: false };
    const signal = AbortSignal.timeout(this.#timeoutMs);
    try {
      const response = await this.#agent.request({
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'user-agent': 'powerdeck-webhooks',
        },
        body,
        signal,
      });
      const excerpt = await excerptOf(response.body);
      const statusCode = response.statusCode;
      const redirected = statusCode >= 300 && statusCode < 400;
      return {
        statusCode,
        latencyMs: latency(),
        ...(redirected ? { error: 'redirects are not followed' } : {}),
        ...(excerpt ? { responseExcerpt: excerpt } : {}),
        succeeded: statusCode >= 200 && statusCode < 300,
      };
    } catch (error) {
      return { latencyMs: latency(), error: wordsOf(error, this.#timeoutMs), succeeded: false };
    }
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }
}

async function excerptOf(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= MAX_READ_BYTES) break;
    }
  } catch {
    // An answer cut short keeps what came.
  } finally {
    body.destroy();
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_EXCERPT_CHARS);
}

/** Why no answer came, in the log's words. */
function wordsOf(error: unknown, timeoutMs: number): string {
  const seen = new Set<unknown>();
  for (let cause = error; cause && !seen.has(cause); cause = (cause as { cause?: unknown }).cause) {
    seen.add(cause);
    const { code, name } = cause as { code?: string; name?: string };
    if (code === PRIVATE_ADDRESS_CODE) return 'the address is private';
    if (
      name === 'TimeoutError' ||
      code === 'UND_ERR_HEADERS_TIMEOUT' ||
      code === 'UND_ERR_BODY_TIMEOUT' ||
      code === 'UND_ERR_CONNECT_TIMEOUT'
    )
      return `timed out after ${Math.round(timeoutMs / 1000)} s`;
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the host name was not found';
    if (code === 'ECONNREFUSED') return 'the connection was refused';
    if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'the connection was closed';
    if (code === 'CERT_HAS_EXPIRED' || code?.startsWith('ERR_TLS') || code?.includes('CERT'))
      return 'its certificate was not accepted';
  }
  return 'the connection failed';
}
