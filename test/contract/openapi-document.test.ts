import { describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { z } from 'zod';
import { readOpenApiDocument } from './support/openapi-response-validator.ts';
import { ID_PATTERN } from '#domain/ids.ts';
import {
  BatchAcceptedSchema,
  BatchCancelAnswerSchema,
  BatchCancelResultSchema,
  BatchRequestSchema,
  BindingAnswerSchema,
  CANCELLATION_REASONS,
  CancelAnswerSchema,
  COMMAND_STATUSES,
  CommandRequestSchema,
  DeviceListSchema,
  DeviceSchema,
  ERROR_CODES,
  ERROR_STATUS,
  ErrorBodySchema,
  HistoryPageSchema,
  MAX_BATCH_DEVICES,
  MAX_PAGE_SIZE,
  OAUTH_ERROR_CODES,
  POWER_CONTROL_PROPERTIES,
  POWER_CONTROL_SCHEMA_BOUNDS,
  PowerControlSchema,
  RateLimitBodySchema,
  SiteBindingRequestSchema,
  SiteListSchema,
  SiteSchema,
  StatusRecordSchema,
  SubmissionAnswerSchema,
  TokenAnswerSchema,
  type ErrorCode,
} from '#sandbox/vendor/schemas.ts';
import {
  AlarmListSchema,
  AlarmSchema,
  ConfigurationSetAnswerSchema,
  ConfigurationUpdateSchema,
  DeviceConfigurationSchema,
  DeviceEnergyStatisticsSchema,
  DeviceTelemetryHistorySchema,
  DeviceTelemetrySchema,
  EnergyPointSchema,
  LatestDataRequestSchema,
  MAX_LATEST_DATA_DEVICES,
  TelemetryBatterySchema,
  TelemetryInverterSchema,
  TelemetryMeterSchema,
  TelemetryPvSchema,
} from '#sandbox/vendor/telemetry-schemas.ts';

type Json = Record<string, unknown>;

const document = readOpenApiDocument();
const components = document.components as {
  schemas: Record<string, Json>;
  responses: Record<string, Json>;
  parameters: Record<string, Json>;
};
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
    ...Object.entries(node).flatMap(([key, child]) =>
      walk(child, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`),
    ),
  ];
}

function resolve(ref: string): Json {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .map((key) => key.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<Json>((node, key) => node[key] as Json, document);
}

const deref = (node: Json): { pointer: string | undefined; value: Json } =>
  typeof node.$ref === 'string'
    ? { pointer: node.$ref.slice(1), value: resolve(node.$ref) }
    : { pointer: undefined, value: node };

const isOptional = (schema: z.ZodType) => schema.safeParse(undefined).success;

/** Property names and required names of a sandbox object schema. */
function zodShape(schema: { shape: Record<string, z.ZodType> }) {
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

/** Every media type with a schema: request bodies and responses, with their JSON pointers. */
function mediaTypes(): { where: string; pointer: string; media: Json }[] {
  const found: { where: string; pointer: string; media: Json }[] = [];
  for (const { path, method, operation } of operations()) {
    const base = `/paths/${path.replaceAll('/', '~1')}/${method}`;
    const body = operation.requestBody as Json | undefined;
    for (const [type, media] of Object.entries((body?.content ?? {}) as Record<string, Json>))
      found.push({
        where: `${method} ${path} request`,
        pointer: `${base}/requestBody/content/${type.replaceAll('/', '~1')}`,
        media,
      });
    for (const [status, raw] of Object.entries(operation.responses as Record<string, Json>)) {
      const { pointer, value } = deref(raw);
      const at = pointer ?? `${base}/responses/${status}`;
      for (const [type, media] of Object.entries((value.content ?? {}) as Record<string, Json>))
        found.push({
          where: `${method} ${path} ${status}`,
          pointer: `${at}/content/${type.replaceAll('/', '~1')}`,
          media,
        });
    }
  }
  return found;
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
    ['post', '/api/auth/oauth2/token', 'token'],
    ['get', '/sites', 'list sites'],
    ['post', '/sites', 'bind'],
    ['delete', '/sites/{siteId}', 'unbind, the vendor form'],
    ['delete', '/sites', 'unbind, the spec form'],
    ['get', '/sites/{siteId}', 'site details'],
    ['get', '/devices', 'list devices'],
    ['get', '/devices/{deviceId}', 'device details'],
    ['post', '/device/{deviceId}/commands', 'submit (singular device)'],
    ['get', '/device/{deviceId}/commands', 'history (singular device)'],
    ['get', '/devices/{deviceId}/commands/{commandId}', 'status'],
    ['put', '/devices/{deviceId}/commands/{commandId}/cancel', 'cancel'],
    ['post', '/devices/commands', 'batch'],
    ['put', '/devices/commands/{batchCommandId}/cancel', 'batch cancel'],
    ['get', '/devices/{deviceId}/latestData', 'latest telemetry'],
    ['post', '/devices/latestData/query', 'latest telemetry of devices'],
    ['get', '/devices/{deviceId}/historicalData', 'telemetry history'],
    ['get', '/devices/{deviceId}/energy', 'energy'],
    ['get', '/devices/{deviceId}/alarms', 'alarms'],
    ['get', '/devices/{deviceId}/configuration', 'configuration'],
    ['put', '/devices/{deviceId}/configuration', 'set configuration'],
  ])('documents the vendor operation %s %s (%s)', (method, path) => {
    expect(paths[path]?.[method]).toBeDefined();
  });

  it('documents nothing under the retired paths of the project’s own guesses', () => {
    expect(paths['/devices/commands/batch']).toBeUndefined();
    expect(paths['/devices/{deviceId}/commands']).toBeUndefined();
  });

  it('serves the business operations under /api/openapi/v1 of a region, the token beside it', () => {
    const [sandbox, ...vendor] = document.servers as {
      url: string;
      variables?: Record<string, Json>;
    }[];
    expect(sandbox?.url).toBe('{origin}/{region}/api/openapi/v1');
    expect(sandbox?.variables?.region?.enum).toEqual(['eu', 'au']);
    expect(vendor.map((server) => new URL(server.url).pathname)).toEqual([
      '/api/openapi/v1',
      '/api/openapi/v1',
    ]);
    const tokenServers = (paths['/api/auth/oauth2/token']?.post?.servers ?? []) as {
      url: string;
    }[];
    expect(tokenServers[0]?.url).toBe('{origin}/{region}');
  });

  it('says how to point a BFF at a Prism mock of it', () => {
    const description = String((document.info as Json).description);
    expect(description).toContain('EU_BASE_URL=http://127.0.0.1:4010');
    expect(description).toContain('ignores the base paths');
  });

  it('gives every request body and every response with a body an example', () => {
    const missing = mediaTypes()
      .filter(({ media }) => media.example === undefined && media.examples === undefined)
      .map(({ where }) => where);
    expect(missing).toEqual([]);
  });

  it('gives examples that its own schemas accept (Prism serves them as they are)', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats(ajv);
    ajv.addSchema(document, 'upstream');
    const problems = mediaTypes().flatMap(({ where, pointer, media }) => {
      const validate = ajv.compile({ $ref: `upstream#${pointer}/schema` });
      const examples =
        media.examples === undefined
          ? [['example', media.example]]
          : Object.entries(media.examples as Record<string, Json>).map(([name, example]) => [
              name,
              deref(example).value.value,
            ]);
      return examples
        .filter(([, value]) => !validate(value))
        .map(([name]) => `${where} ${String(name)}: ${ajv.errorsText(validate.errors)}`);
    });
    expect(problems).toEqual([]);
  });

  it('marks what powerdeck decided and cites docs/upstream.md for it', () => {
    const marked = walk(document).filter(({ value }) => value['x-powerdeck-decision'] === true);
    expect(marked.length).toBeGreaterThanOrEqual(8);
    const unexplained = marked
      .filter(({ value }) => !/docs\/upstream\.md/.test(String(value.description ?? '')))
      .map(({ pointer }) => pointer);
    expect(unexplained).toEqual([]);
  });

  it('keeps the sandbox admin API apart: tagged sandbox-admin and x-sandbox-only, never secured', () => {
    for (const { path, operation } of operations()) {
      const admin = path.startsWith('/_sandbox/');
      expect(operation['x-sandbox-only'] === true, path).toBe(admin);
      expect((operation.tags as string[]).includes('sandbox-admin'), path).toBe(admin);
      if (admin) expect(operation.security, path).toEqual([]);
    }
  });

  it('documents an operationId on every operation (the response validator routes by it)', () => {
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(ids.every((id) => typeof id === 'string')).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('documents 429 and 5xx on every business operation (injected faults)', () => {
    const missing = operations()
      .filter(({ path }) => !path.startsWith('/_sandbox/') && !path.startsWith('/api/auth'))
      .filter(({ operation }) => {
        const responses = operation.responses as Json;
        return !responses['429'] || !responses['5XX'];
      })
      .map(({ method, path }) => `${method} ${path}`);
    expect(missing).toEqual([]);
  });
});

describe('docs/upstream.openapi.yaml agrees with the sandbox (src/sandbox/vendor/schemas.ts)', () => {
  it('lists the command statuses and cancellation reasons', () => {
    expect(schemas.CommandStatus?.enum).toEqual([...COMMAND_STATUSES]);
    expect(schemas.CancellationReason?.enum).toEqual([...CANCELLATION_REASONS]);
  });

  it('uses the ID pattern of the sandbox', () => {
    expect(schemas.Id?.pattern).toBe(ID_PATTERN.source);
  });

  it('bounds each power control property as the vendor schema and the sandbox do', () => {
    const properties = schemas.PowerControl?.properties as Record<string, Json>;
    expect(Object.keys(properties)).toEqual([...POWER_CONTROL_PROPERTIES]);
    for (const property of POWER_CONTROL_PROPERTIES) {
      const bounds = POWER_CONTROL_SCHEMA_BOUNDS[property];
      expect(properties[property], property).toEqual({
        type: 'integer',
        ...(bounds ? { minimum: bounds.min, maximum: bounds.max } : {}),
      });
    }
    expect(schemas.PowerControl?.minProperties).toBe(1);
  });

  it('caps a batch at 50 distinct devices and a page at 500 items', () => {
    const devices = (schemas.BatchRequest?.properties as Record<string, Json>).devices;
    expect(devices).toMatchObject({ maxItems: MAX_BATCH_DEVICES, minItems: 1, uniqueItems: true });
    expect(components.parameters.Size?.schema).toMatchObject({ maximum: MAX_PAGE_SIZE });
  });

  it("caps the latest-telemetry query at the vendor's 100 distinct devices", () => {
    const devices = (schemas.LatestDataRequest?.properties as Record<string, Json>).devices;
    expect(devices).toMatchObject({
      maxItems: MAX_LATEST_DATA_DEVICES,
      minItems: 1,
      uniqueItems: true,
    });
  });

  it('lists exactly the error codes of the sandbox, the rate limit apart', () => {
    const errorCode = (schemas.Error?.properties as Record<string, Json>).errorCode;
    expect(errorCode?.enum).toEqual(ERROR_CODES.filter((code) => code !== 'RATE_LIMIT_EXCEEDED'));
    const rateCode = (schemas.RateLimitError?.properties as Record<string, Json>).code;
    expect(rateCode?.const).toBe('RATE_LIMIT_EXCEEDED');
    const oauth = (schemas.OAuthError?.properties as Record<string, Json>).error;
    expect(oauth?.enum).toEqual([...OAUTH_ERROR_CODES]);
  });

  it('answers each fixed error code with the status the sandbox gives it', () => {
    const mismatches = operations().flatMap(({ path, method, operation }) =>
      Object.entries(operation.responses as Record<string, Json>).flatMap(([status, ref]) => {
        const codes = walk(deref(ref).value)
          .map(({ value }) => (value.properties as Record<string, Json> | undefined)?.errorCode)
          .flatMap((code) => [code?.const, ...((code?.enum as unknown[] | undefined) ?? [])])
          .filter((code): code is ErrorCode => typeof code === 'string');
        return codes
          .filter((code) => {
            const expected = ERROR_STATUS[code];
            return status === '5XX' ? expected < 500 : String(expected) !== status;
          })
          .map((code) => `${method} ${path} ${status}: ${code}`);
      }),
    );
    expect(mismatches).toEqual([]);
  });

  it.each([
    ['Device', DeviceSchema],
    ['Site', SiteSchema],
    ['SiteList', SiteListSchema],
    ['DeviceList', DeviceListSchema],
    ['SiteBindingRequest', SiteBindingRequestSchema],
    ['BindingAnswer', BindingAnswerSchema],
    ['PowerControl', PowerControlSchema],
    ['CommandRequest', CommandRequestSchema],
    ['SubmissionAnswer', SubmissionAnswerSchema],
    ['StatusRecord', StatusRecordSchema],
    ['HistoryPage', HistoryPageSchema],
    ['CancelAnswer', CancelAnswerSchema],
    ['BatchRequest', BatchRequestSchema],
    ['BatchAccepted', BatchAcceptedSchema],
    ['BatchCancelResult', BatchCancelResultSchema],
    ['BatchCancelAnswer', BatchCancelAnswerSchema],
    ['TokenAnswer', TokenAnswerSchema],
    ['Error', ErrorBodySchema],
    ['RateLimitError', RateLimitBodySchema],
    ['LatestDataRequest', LatestDataRequestSchema],
    ['DeviceTelemetry', DeviceTelemetrySchema],
    ['TelemetryMeter', TelemetryMeterSchema],
    ['TelemetryInverter', TelemetryInverterSchema],
    ['TelemetryBattery', TelemetryBatterySchema],
    ['TelemetryPv', TelemetryPvSchema],
    ['DeviceTelemetryHistory', DeviceTelemetryHistorySchema],
    ['EnergyPoint', EnergyPointSchema],
    ['DeviceEnergyStatistics', DeviceEnergyStatisticsSchema],
    ['Alarm', AlarmSchema],
    ['AlarmList', AlarmListSchema],
    ['DeviceConfiguration', DeviceConfigurationSchema],
    ['ConfigurationUpdate', ConfigurationUpdateSchema],
    ['ConfigurationSetAnswer', ConfigurationSetAnswerSchema],
  ] as const)('gives %s the fields and required fields of the sandbox schema', (name, schema) => {
    expect(documentShape(name)).toEqual(zodShape(schema));
  });
});
