import type { OpenApiResponseValidator } from './openapi-response-validator.ts';

/**
 * Which server URL a path is relative to: the region's base URL, its auth URL, the other
 * region's (for isolation rows) or the sandbox admin root.
 */
export type ServerKind = 'base' | 'auth' | 'otherBase' | 'otherAuth' | 'admin';

/** A request of the suite. `json` and `form` are the two body encodings the upstream takes. */
export interface ContractRequest {
  server: ServerKind;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path relative to the server URL, without query, e.g. `/devices/BAT-1/commands`. */
  path: string;
  query?: Record<string, string>;
  json?: unknown;
  form?: Record<string, string>;
  /** A body sent as it is, with its own content type: for malformed requests. */
  raw?: { contentType: string; body: string };
  /** Sent as `Authorization: Bearer <token>` when given. */
  token?: string;
}

/** A response of the upstream, already checked against the OpenAPI document. */
export interface ContractResponse {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON body, or `undefined` when the body was empty. */
  body: unknown;
}

/** A response that departs from `docs/upstream.openapi.yaml`. */
export class ContractViolationError extends Error {
  override readonly name = 'ContractViolationError';
  constructor(
    readonly request: ContractRequest,
    readonly status: number,
    readonly bodyText: string,
    readonly problems: string[],
  ) {
    super(
      `${request.method} ${request.path} answered ${status}, which departs from docs/upstream.openapi.yaml:\n` +
        problems.map((problem) => `  - ${problem}`).join('\n') +
        `\n  body: ${bodyText.slice(0, 500)}`,
    );
  }
}

/**
 * The contract suite's one HTTP helper. Every response it receives is validated against
 * `docs/upstream.openapi.yaml` before any test sees it, so the document cannot drift from the
 * sandbox: a departure throws {@link ContractViolationError}, so no test can pass on a response the
 * document does not allow.
 */
export class ContractHttp {
  constructor(
    private readonly validator: OpenApiResponseValidator,
    private readonly servers: Record<ServerKind, string | undefined>,
  ) {}

  async send(request: ContractRequest): Promise<ContractResponse> {
    const root = this.servers[request.server];
    if (!root) throw new Error(`No URL configured for the ${request.server} server`);
    const url = new URL(root + request.path);
    for (const [name, value] of Object.entries(request.query ?? {}))
      url.searchParams.set(name, value);
    const headers: Record<string, string> = { accept: 'application/json' };
    let body: string | undefined;
    if (request.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(request.json);
    } else if (request.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(request.form).toString();
    } else if (request.raw) {
      headers['content-type'] = request.raw.contentType;
      body = request.raw.body;
    }
    if (request.token !== undefined) headers.authorization = `Bearer ${request.token}`;

    const response = await fetch(url, { method: request.method, headers, body });
    const bodyText = await response.text();
    const responseHeaders = Object.fromEntries(response.headers.entries());
    const problems = this.validator.problems({
      method: request.method,
      path: request.path,
      status: response.status,
      headers: responseHeaders,
      bodyText,
    });
    if (problems.length > 0)
      throw new ContractViolationError(request, response.status, bodyText, problems);
    return {
      status: response.status,
      headers: responseHeaders,
      body: bodyText.length > 0 ? (JSON.parse(bodyText) as unknown) : undefined,
    };
  }
}
