import http from 'node:http';

/** An answer as the tests read it. */
export interface TestResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON; throws when it is not JSON. */
  json<T = unknown>(): T;
}

/** One request; `path` is sent exactly as written (no dot-segment normalisation, unlike fetch). */
export interface TestRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** Sent as `application/json` unless `headers['content-type']` says otherwise. */
  json?: unknown;
  /** A raw body, sent as is. */
  body?: string;
}

/** Sends one HTTP/1.1 request to `origin` with node:http and reads the whole answer. */
export function send(origin: string, request: TestRequest): Promise<TestResponse> {
  const url = new URL(origin);
  const headers: Record<string, string> = { ...request.headers };
  let body = request.body;
  if (request.json !== undefined) {
    body = JSON.stringify(request.json);
    headers['content-type'] ??= 'application/json';
  }
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      { host: url.hostname, port: url.port, method: request.method, path: request.path, headers },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', reject);
        incoming.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            text,
            json: <T>() => JSON.parse(text) as T,
          });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/**
 * A browser as the BFF sees it: keeps the cookies the BFF sets (a jar of name=value), and on
 * every non-GET adds `X-CSRF: 1` and `Origin: <the BFF's origin>` like the SPA does. Tests that
 * probe the CSRF defence pass `csrf: false` and their own headers.
 */
export class BrowserClient {
  readonly origin: string;
  readonly cookies = new Map<string, string>();
  /** Every answer this browser received, in order (security scans read them). */
  readonly responses: TestResponse[] = [];

  constructor(origin: string) {
    this.origin = origin;
  }

  async request(request: TestRequest & { csrf?: boolean }): Promise<TestResponse> {
    const headers: Record<string, string> = {};
    if (request.method !== 'GET' && request.method !== 'HEAD' && request.csrf !== false) {
      headers['x-csrf'] = '1';
      headers.origin = this.origin;
    }
    if (this.cookies.size > 0)
      headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await send(this.origin, {
      ...request,
      headers: { ...headers, ...request.headers },
    });
    this.#remember(response.headers['set-cookie'] ?? []);
    this.responses.push(response);
    return response;
  }

  get(path: string, headers?: Record<string, string>): Promise<TestResponse> {
    return this.request({ method: 'GET', path, ...(headers ? { headers } : {}) });
  }

  post(path: string, json?: unknown): Promise<TestResponse> {
    return this.request({ method: 'POST', path, ...(json === undefined ? {} : { json }) });
  }

  put(path: string, json?: unknown): Promise<TestResponse> {
    return this.request({ method: 'PUT', path, ...(json === undefined ? {} : { json }) });
  }

  delete(path: string, json?: unknown): Promise<TestResponse> {
    return this.request({ method: 'DELETE', path, ...(json === undefined ? {} : { json }) });
  }

  /** Signs in through `POST /api/session`; the session cookie lands in the jar. */
  signIn(credentials: {
    region: 'eu' | 'au';
    clientId: string;
    clientSecret: string;
    operatorName?: string;
  }): Promise<TestResponse> {
    return this.post('/api/session', credentials);
  }

  #remember(setCookies: string[]): void {
    for (const line of setCookies) {
      const [pair = '', ...attributes] = line.split(';');
      const index = pair.indexOf('=');
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      const expired = attributes.some(
        (a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=Thu, 01 Jan 1970/i.test(a),
      );
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
}
