import { describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { z } from 'zod';
import { readOpenApiDocument } from './support/openapi-response-validator.ts';
import {
  CANCELLATION_REASONS,
  COMMAND_STATUSES,
  DeviceCommandSchema,
  StatusRecordSchema,
  SubmissionResponseSchema,
} from '../../src/domain/command.ts';
import {
  BatchCancelResponseSchema,
  BatchCancelResultSchema,
  BatchRequestSchema,
  BatchSubmissionResponseSchema,
  MAX_BATCH_DEVICES,
} from '../../src/domain/batch.ts';
import { HistoryResponseSchema } from '../../src/domain/history.ts';
import {
  CapabilityRangeSchema,
  DeviceSchema,
  SiteBindingRequestSchema,
  SiteListSchema,
  SiteSchema,
} from '../../src/domain/device.ts';
import { OAUTH_ERROR_CODES, UPSTREAM_ERROR_STATUS } from '../../src/domain/errors.ts';
import { TokenRequestSchema, TokenResponseSchema } from '../../src/domain/token.ts';
import {
  POWER_CONTROL_PROPERTIES,
  POWER_CONTROL_SCHEMA_BOUNDS,
} from '../../src/domain/power-control.ts';
import { ID_PATTERN } from '../../src/domain/ids.ts';

type Json = Record<string, unknown>;

const document = readOpenApiDocument();
const components = document.components as { schemas: Record<string, Json>; responses: Json };
const schemas = components.schemas;
const paths = document.paths as Record<string, Record<string, Json>>;

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

function operations(): { path: string; method: string; operation: Json }[] {
  return Object.entries(paths).flatMap(([path, item]) =>
    HTTP_METHODS.filter((method) => item[method]).map((method) => ({
      path,
      method,
      operation: item[method] as Json,
    })),
  );
}

/** Every object in the document, with its JSON pointer. */
function walk(node: unknown, pointer = ''): { pointer: string; value: Json }[] {
  if (typeof node !== 'object' || node === null) return [];
  const here = Array.isArray(node) ? [] : [{ pointer, value: node as Json }];
  return [
    ...here,
    ...Object.entries(node).flatMap(([key, child]) => walk(child, `${pointer}/${key}`)),
  ];
}

function resolve(ref: string): Json {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<Json>((node, key) => node[key] as Json, document);
}

const isOptional = (schema: z.ZodType) => schema.safeParse(undefined).success;

/** Property names and required names of a domain object schema. */
function domainShape(schema: { shape: Record<string, z.ZodType> }) {
  const names = Object.keys(schema.shape).sort();
  const required = names.filter((name) => !isOptional(schema.shape[name] as z.ZodType)).sort();
  return { names, required };
}

function documentShape(name: string) {
  const schema = schemas[name] as { properties: Json; required?: string[] };
  return {
    names: Object.keys(schema.properties).sort(),
    required: [...(schema.required ?? [])].sort(),
  };
}

describe('docs/upstream.openapi.yaml', () => {
  it('is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('is refused by the same validator when a response loses its description', async () => {
    const broken = structuredClone(document) as {
      paths: { '/sites': { get: { responses: Record<string, Json> } } };
    };
    delete broken.paths['/sites'].get.responses['200']?.description;
    const result = await new Validator().validate(broken);
    expect(result.valid).toBe(false);
  });

  it.each([
    ['post', '/api/auth/oauth2/token', 'Obtain token'],
    ['post', '/device/{deviceId}/commands', 'Send device command'],
    ['get', '/devices/{deviceId}/commands/{commandId}', 'Query command status'],
    ['get', '/devices/{deviceId}/commands', 'Query command history'],
    ['put', '/devices/{deviceId}/commands/{commandId}/cancel', 'Cancel command'],
    ['post', '/devices/commands/batch', 'Send batch command'],
    ['put', '/devices/commands/batch/{batchCommandId}/cancel', 'Cancel batch command'],
    ['post', '/sites', 'Bind site'],
    ['delete', '/sites', 'Unbind site'],
    ['get', '/sites', 'List authorized sites'],
  ])('documents spec 4 operation %s %s (%s)', (method, path) => {
    expect(paths[path]?.[method]).toBeDefined();
  });

  it('serves both regions through the region server variable (our choice)', () => {
    const [server] = document.servers as { url: string; variables: Record<string, Json> }[];
    expect(server?.url).toContain('{region}');
    expect(server?.variables.region?.enum).toEqual(['eu', 'au']);
  });

  it.each([
    ['get', '/devices/{deviceId}/commands', 'history path and parameters'],
    ['post', '/devices/commands/batch', 'batch submission path'],
    ['put', '/devices/commands/batch/{batchCommandId}/cancel', 'batch cancellation path'],
  ])('marks %s %s as our choice (%s "not shown")', (method, path) => {
    expect(paths[path]?.[method]?.['x-powerdeck-choice']).toBe(true);
  });

  it.each([
    ['get', '/devices/{deviceId}/commands/{commandId}', '200'],
    ['put', '/devices/{deviceId}/commands/{commandId}/cancel', '200'],
    ['post', '/sites', '201'],
    ['post', '/sites', '200'],
    ['delete', '/sites', '204'],
    ['get', '/sites', '200'],
  ])('marks the success response of %s %s (%s) as our choice', (method, path, status) => {
    const responses = paths[path]?.[method]?.responses as Record<string, Json>;
    expect(responses[status]?.['x-powerdeck-choice']).toBe(true);
  });

  it('names docs/architecture.md in the description of every choice marked x-powerdeck-choice', () => {
    const marked = walk(document).filter(({ value }) => value['x-powerdeck-choice'] === true);
    expect(marked.length).toBeGreaterThan(20);
    const unexplained = marked
      .filter(({ value }) => !/docs\/architecture\.md/.test(String(value.description ?? '')))
      .map(({ pointer }) => pointer);
    expect(unexplained).toEqual([]);
  });

  it('marks every error response as our choice (spec 7: status codes and body "not shown")', () => {
    const unmarked = operations()
      .filter(({ operation }) => !operation['x-sandbox-only'])
      .flatMap(({ path, method, operation }) =>
        Object.entries(operation.responses as Record<string, Json>)
          .filter(([status]) => !status.startsWith('2'))
          .map(([status, response]) => ({
            where: `${method} ${path} ${status}`,
            response: typeof response.$ref === 'string' ? resolve(response.$ref) : response,
          })),
      )
      .filter(({ response }) => response['x-powerdeck-choice'] !== true)
      .map(({ where }) => where);
    expect(unmarked).toEqual([]);
  });

  it('keeps the sandbox admin API apart: tagged sandbox-admin and x-sandbox-only, never secured', () => {
    for (const { path, operation } of operations()) {
      const admin = path.startsWith('/_sandbox/');
      expect(operation['x-sandbox-only'] === true, path).toBe(admin);
      expect((operation.tags as string[]).includes('sandbox-admin'), path).toBe(admin);
    }
  });

  it('documents an operationId on every operation (the response validator routes by it)', () => {
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(ids.every((id) => typeof id === 'string')).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('docs/upstream.openapi.yaml agrees with src/domain', () => {
  it('lists the command statuses of spec 3.1', () => {
    expect(schemas.CommandStatus?.enum).toEqual([...COMMAND_STATUSES]);
  });

  it('lists the cancellation reasons of spec 3.2', () => {
    expect(schemas.CancellationReason?.enum).toEqual([...CANCELLATION_REASONS]);
  });

  it('uses the domain ID pattern', () => {
    expect(schemas.Id?.pattern).toBe(ID_PATTERN.source);
  });

  it('bounds each power control property as the domain does', () => {
    const properties = schemas.PowerControl?.properties as Record<string, Json>;
    expect(Object.keys(properties)).toEqual([...POWER_CONTROL_PROPERTIES]);
    for (const property of POWER_CONTROL_PROPERTIES) {
      const { min, max } = POWER_CONTROL_SCHEMA_BOUNDS[property];
      expect(properties[property], property).toMatchObject({
        type: 'integer',
        minimum: min,
        maximum: max,
      });
    }
    expect(schemas.PowerControl?.minProperties).toBe(1);
  });

  it('caps a batch at the domain maximum of devices (spec 8)', () => {
    const devices = (schemas.BatchRequest?.properties as Record<string, Json>).devices;
    expect(devices).toMatchObject({ maxItems: MAX_BATCH_DEVICES, minItems: 1, uniqueItems: true });
  });

  it('lists exactly the error codes of src/domain/errors.ts', () => {
    const code = (schemas.ApiError?.properties as Record<string, Json>).code;
    expect(code?.enum).toEqual(Object.keys(UPSTREAM_ERROR_STATUS));
    const oauth = (schemas.OAuthError?.properties as Record<string, Json>).error;
    expect(oauth?.enum).toEqual([...OAUTH_ERROR_CODES]);
  });

  it('answers each fixed error code with the status the domain gives it', () => {
    const mismatches = operations().flatMap(({ path, method, operation }) =>
      Object.entries(operation.responses as Record<string, Json>).flatMap(([status, ref]) => {
        const response = typeof ref.$ref === 'string' ? resolve(ref.$ref) : ref;
        const schema = (response.content as Record<string, Json> | undefined)?.['application/json']
          ?.schema as Json | undefined;
        const codes = walk(schema)
          .map(({ value }) => (value.properties as Record<string, Json> | undefined)?.code?.const)
          .filter((code): code is keyof typeof UPSTREAM_ERROR_STATUS => typeof code === 'string');
        return codes
          .filter((code) => String(UPSTREAM_ERROR_STATUS[code]) !== status)
          .map((code) => `${method} ${path} ${status}: ${code}`);
      }),
    );
    expect(mismatches).toEqual([]);
  });

  it.each([
    ['StatusRecord', StatusRecordSchema],
    ['SubmissionResponse', SubmissionResponseSchema],
    ['DeviceCommand', DeviceCommandSchema],
    ['HistoryResponse', HistoryResponseSchema],
    ['BatchRequest', BatchRequestSchema],
    ['BatchSubmissionResponse', BatchSubmissionResponseSchema],
    ['BatchCancelResult', BatchCancelResultSchema],
    ['BatchCancelResponse', BatchCancelResponseSchema],
    ['CapabilityRange', CapabilityRangeSchema],
    ['Device', DeviceSchema],
    ['Site', SiteSchema],
    ['SiteList', SiteListSchema],
    ['SiteBindingRequest', SiteBindingRequestSchema],
    ['TokenRequest', TokenRequestSchema],
    ['TokenResponse', TokenResponseSchema],
  ] as const)('gives %s the fields and required fields of the domain schema', (name, schema) => {
    expect(documentShape(name)).toEqual(domainShape(schema));
  });
});
