import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChild, stopChild, waitForAnswer } from './child-process.ts';
import {
  E2E_PRISM_BFF_PORT,
  E2E_PRISM_MOCK_PORT,
  E2E_PRISM_TOKEN_PORT,
} from '../../playwright.config.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const DOCUMENT = path.join(root, 'docs', 'upstream.openapi.yaml');

/**
 * When the document's examples happen: 07:55 UTC on 2026-06-01, before the example site's bind
 * at 07:58 (the document's "Mocking with Prism" tells the story: a command sent at 08:00 for 10:00
 * to 11:00, a batch at 08:05, ...).
 */
export const STORY_START = Date.parse('2026-06-01T07:55:00Z');

/** An ISO 8601 UTC timestamp as the document's examples write them, with or without ms. */
const EXAMPLE_TIMESTAMP = /\b(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d{3})?Z\b/g;

/** Only the story's timestamps move: not, say, a device's install date two years earlier. */
const STORY_SPAN_MS = 7 * 24 * 3600_000;

/**
 * The document's text with every timestamp of the story moved by `shiftMs`, written as it was
 * (seconds, and milliseconds where the example has them). Nothing else changes.
 */
export function moveStory(document: string, shiftMs: number): string {
  return document.replace(EXAMPLE_TIMESTAMP, (text, _seconds: string, ms: string | undefined) => {
    const instant = Date.parse(text);
    if (Math.abs(instant - STORY_START) > STORY_SPAN_MS) return text;
    const moved = new Date(instant + shiftMs).toISOString();
    return ms === undefined ? moved.replace(/\.\d{3}Z$/, 'Z') : moved;
  });
}

/** How long the stack may take to answer: Prism parses the document, the BFF opens PGlite. */
const START_TIMEOUT_MS = 120_000;

/**
 * The token answer's example each region's token requests ask Prism for: the partner guide's
 * shape (`access_token`, the document's first example) for Europe, the vendor document's
 * camelCase `TokenResponse` for Australia (docs/upstream.md, Tokens; the examples' names are
 * those of docs/upstream.openapi.yaml).
 */
export const TOKEN_EXAMPLE = { eu: 'guide', au: 'document' } as const;
type Region = keyof typeof TOKEN_EXAMPLE;

/** A token request the relay passed to Prism, with the field names of Prism's answer. */
export interface RelayedToken {
  region: Region;
  status: number;
  fields: string[];
}

/**
 * A BFF (`scripts/start.ts`, no sandbox) whose upstream, both regions, is a Prism mock of
 * docs/upstream.openapi.yaml serving its static examples. The examples tell their story on
 * 2026-06-01, and the product shows what is near now (a device page the next 30 days, the
 * timeline a few hours), so Prism serves the document with the story's timestamps moved to start
 * at the stack's start ({@link moveStory}): the browser and the BFF keep the real clock. Token
 * requests reach Prism through a small relay that asks for each region's example with
 * `Prefer: example=` (Prism answers the first example otherwise, and a BFF sends no such header);
 * business calls go to Prism directly. Prism runs with `--errors`: a request of the BFF that
 * departs from the document is answered with one of the document's error examples instead.
 */
export interface PrismStack {
  /** The BFF's origin, where the SPA is served. */
  readonly origin: string;
  /** What {@link STORY_START} became: the examples' 07:55 UTC, epoch ms. */
  readonly storyStartMs: number;
  /** Every token request the relay passed on, in order. */
  readonly tokens: readonly RelayedToken[];
  /** Prism's log lines that report a request or answer departing from the document. */
  violations(): string[];
  /** Stops the BFF, Prism and the relay, and removes the BFF's data folder. */
  stop(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The token relay: `POST /{region}/api/auth/oauth2/token` goes to Prism's
 * `/api/auth/oauth2/token` with `Prefer: example=` of the region's shape.
 */
function startTokenRelay(mockOrigin: string, tokens: RelayedToken[]): Server {
  const server = createServer((request, response) => {
    void (async () => {
      const match = /^\/(eu|au)(\/api\/auth\/oauth2\/token)$/.exec(request.url ?? '');
      const body = await readBody(request);
      if (!match) {
        response.writeHead(404).end();
        return;
      }
      const region = match[1] as Region;
      const answer = await fetch(`${mockOrigin}${match[2]}`, {
        method: request.method,
        headers: {
          'content-type': request.headers['content-type'] ?? '',
          accept: request.headers.accept ?? 'application/json',
          prefer: `example=${TOKEN_EXAMPLE[region]}`,
        },
        body: request.method === 'GET' || request.method === 'HEAD' ? undefined : body,
      });
      const text = await answer.text();
      let fields: string[] = [];
      try {
        fields = Object.keys(JSON.parse(text) as object);
      } catch {
        // Not JSON: recorded without fields, and the BFF reads it as it would any such answer.
      }
      tokens.push({ region, status: answer.status, fields });
      response.writeHead(answer.status, {
        'content-type': answer.headers.get('content-type') ?? 'application/json',
      });
      response.end(text);
    })().catch((error: unknown) => {
      response.writeHead(502).end(String(error));
    });
  });
  server.listen(E2E_PRISM_TOKEN_PORT, '127.0.0.1');
  return server;
}

/**
 * Starts Prism on docs/upstream.openapi.yaml, the token relay and a BFF pointed at both, on the
 * ports of playwright.config.ts (`E2E_PRISM_*`), with a fresh data folder; resolves once all
 * answer.
 *
 * @throws Error with the children's output when one exits or does not answer within 2 minutes.
 */
export async function startPrismStack(): Promise<PrismStack> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  const mockOrigin = `http://127.0.0.1:${E2E_PRISM_MOCK_PORT}`;
  const relayOrigin = `http://127.0.0.1:${E2E_PRISM_TOKEN_PORT}`;
  const origin = `http://127.0.0.1:${E2E_PRISM_BFF_PORT}`;
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'powerdeck-e2e-prism-'));
  const tokens: RelayedToken[] = [];
  const relay = startTokenRelay(mockOrigin, tokens);

  // Whole minutes, so the examples' times stay on the minute.
  const storyStartMs = Math.floor(Date.now() / 60_000) * 60_000;
  const document = path.join(dataDir, 'upstream.openapi.yaml');
  await writeFile(
    document,
    moveStory(await readFile(DOCUMENT, 'utf8'), storyStartMs - STORY_START),
  );

  const prismBin = createRequire(import.meta.url).resolve('@stoplight/prism-cli/dist/index.js');
  const violations: string[] = [];
  const prism = startChild(
    'prism',
    [
      prismBin,
      'mock',
      document,
      '--host',
      '127.0.0.1',
      '--port',
      String(E2E_PRISM_MOCK_PORT),
      '--errors',
    ],
    process.env,
    (line) => {
      // `[VALIDATOR] ✖  error     Violation: request.query.page ...`, and its warnings.
      if (/\[VALIDATOR\].*\b(error|warning)\b/.test(line)) violations.push(line);
    },
  );
  const bff = startChild(
    'bff',
    ['--max-semi-space-size=16', '--import', 'tsx', 'scripts/start.ts'],
    {
      ...process.env,
      PORT: String(E2E_PRISM_BFF_PORT),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      // Prism serves the paths as the document writes them, at its root (the document's
      // "Mocking with Prism"): no `/api/openapi/v1` in the base URL.
      EU_AUTH_URL: `${relayOrigin}/eu`,
      EU_BASE_URL: mockOrigin,
      AU_AUTH_URL: `${relayOrigin}/au`,
      AU_BASE_URL: mockOrigin,
      // A static mock has no limit, and its story (bind, history reads, a submission, a cancel)
      // spends more than the vendor's 2 calls of the example device in a minute: the budget the
      // other browser stacks run with lets the cancel go at once instead of queued.
      EU_DEVICE_CALLS_PER_MINUTE: '30',
      AU_DEVICE_CALLS_PER_MINUTE: '30',
    },
  );
  const children = [prism, bff];
  const stop = async () => {
    await Promise.all(children.map(stopChild));
    relay.close();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    // With a bearer token, as the document requires, so Prism logs no violation for the probe.
    await waitForAnswer(`${mockOrigin}/sites`, children, deadline, {
      authorization: 'Bearer ready',
    });
    await waitForAnswer(`${origin}/api/session`, children, deadline);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    origin,
    storyStartMs,
    tokens,
    violations: () => [...violations],
    stop,
  };
}
