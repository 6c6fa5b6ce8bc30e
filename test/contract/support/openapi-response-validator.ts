import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { OpenAPIBackend, SetMatchType, type Document, type Operation } from 'openapi-backend';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

/** Path of the upstream's OpenAPI 3.1 document, the contract every answer is checked against. */
export const OPENAPI_DOCUMENT_PATH = fileURLToPath(
  new URL('../../../docs/upstream.openapi.yaml', import.meta.url),
);

/** Reads and parses `docs/upstream.openapi.yaml`. */
export function readOpenApiDocument(): Record<string, unknown> {
  return parse(readFileSync(OPENAPI_DOCUMENT_PATH, 'utf8')) as Record<string, unknown>;
}

/** One HTTP response as the suite saw it, with the request that caused it. */
export interface Exchange {
  method: string;
  /** Path relative to the server URL of the operation (region base, auth or sandbox root). */
  path: string;
  status: number;
  headers: Record<string, string>;
  /** Raw body text; empty string when there was none. */
  bodyText: string;
}

interface ResponseObject {
  content?: Record<string, unknown>;
}

/**
 * Checks responses against `docs/upstream.openapi.yaml` with openapi-backend (operation
 * matching, per-status body and header validation). openapi-backend compiles schemas with the
 * Ajv instance we hand it: Ajv2020 (JSON Schema 2020-12, the dialect of OpenAPI 3.1) with
 * ajv-formats, so `if`/`then`, `const` and `date-time` are checked as 3.1 means them.
 */
export class OpenApiResponseValidator {
  private constructor(private readonly api: OpenAPIBackend) {}

  /** Loads and dereferences the document; the document itself is checked by its own test. */
  static async load(): Promise<OpenApiResponseValidator> {
    const api = new OpenAPIBackend({
      definition: readOpenApiDocument() as unknown as Document,
      // quick: openapi-backend's own document check knows only OpenAPI 3.0 schemas; the
      // document is validated as 3.1 by @seriousme/openapi-schema-validator instead.
      quick: true,
      strict: true,
      customizeAjv: (_ajv, options) => {
        const ajv = new Ajv2020({ ...options, strict: false, allErrors: true });
        addFormats(ajv);
        return ajv;
      },
    });
    await api.init();
    return new OpenApiResponseValidator(api);
  }

  /**
   * Every way `exchange` departs from the document: no documented operation, an undocumented
   * status, a body or headers that do not match the response's schema. Empty when it conforms.
   */
  problems(exchange: Exchange): string[] {
    const operation = this.api.matchOperation({
      method: exchange.method.toLowerCase(),
      path: exchange.path,
      headers: {},
    });
    if (!operation) return [`no operation documents ${exchange.method} ${exchange.path}`];
    const response = documentedResponse(operation, exchange.status);
    if (!response) return [`${operation.operationId} does not document status ${exchange.status}`];
    return [
      ...this.bodyProblems(operation, exchange, response),
      ...this.headerProblems(operation, exchange),
    ];
  }

  private bodyProblems(
    operation: Operation,
    exchange: Exchange,
    response: ResponseObject,
  ): string[] {
    const declaresJson = Boolean(response.content?.['application/json']);
    if (!declaresJson) {
      return exchange.bodyText.length === 0
        ? []
        : [`status ${exchange.status} documents no body, got ${JSON.stringify(exchange.bodyText)}`];
    }
    const contentType = exchange.headers['content-type'] ?? '';
    if (!/^application\/json\b/.test(contentType))
      return [`content-type ${JSON.stringify(contentType)} is not application/json`];
    let body: unknown;
    try {
      body = JSON.parse(exchange.bodyText);
    } catch {
      return [`body is not JSON: ${JSON.stringify(exchange.bodyText.slice(0, 200))}`];
    }
    const result = this.api.validateResponse(body, operation, exchange.status);
    return (result.errors ?? []).map(
      (error) =>
        `body${error.instancePath || ''} ${error.message ?? ''} ${JSON.stringify(error.params)}`,
    );
  }

  private headerProblems(operation: Operation, exchange: Exchange): string[] {
    const result = this.api.validateResponseHeaders(exchange.headers, operation, {
      statusCode: exchange.status,
      setMatchType: SetMatchType.Superset,
    });
    return (result.errors ?? []).map(
      (error) =>
        `headers${error.instancePath || ''} ${error.message ?? ''} ${JSON.stringify(error.params)}`,
    );
  }
}

/** The response the document declares for `status`: exact, then `5XX`-style, then `default`. */
function documentedResponse(operation: Operation, status: number): ResponseObject | undefined {
  const responses = (operation.responses ?? {}) as Record<string, ResponseObject>;
  return (
    responses[String(status)] ?? responses[`${Math.floor(status / 100)}XX`] ?? responses.default
  );
}
