import {
  BatchCancelResponseSchema,
  BatchRequestSchema,
  BatchSubmissionResponseSchema,
} from '../../domain/batch.ts';
import { DeviceCommandSchema, SubmissionResponseSchema } from '../../domain/command.ts';
import { SiteBindingRequestSchema } from '../../domain/device.ts';
import type { LedgerSpec } from './ledger.ts';

const paramsOf = (params: unknown) => (params ?? {}) as Record<string, string>;

/**
 * How each state-changing operation is recorded (issue 4): the subject of the entry, and what
 * the BFF reads from the upstream's 2xx answer (DESIGN.md 5: only submission and batch
 * outcomes are parsed; the rest is recorded by status).
 */
export const LEDGER_SPECS = {
  submit: {
    kind: 'submit',
    subject: ({ params, body }) => {
      const command = DeviceCommandSchema.parse(body);
      return {
        deviceId: paramsOf(params).deviceId ?? '',
        window: { startTime: command.startTime, endTime: command.endTime },
        request: command,
      };
    },
    outcome: (body) => {
      const parsed = SubmissionResponseSchema.safeParse(body);
      return parsed.success ? { outcome: {}, commandId: parsed.data.id } : { outcome: {} };
    },
  },
  cancel: {
    kind: 'cancel',
    subject: ({ params }) => ({
      deviceId: paramsOf(params).deviceId ?? '',
      commandId: paramsOf(params).commandId ?? '',
    }),
    outcome: () => ({ outcome: {} }),
  },
  batch: {
    kind: 'batch',
    subject: ({ body }) => {
      const batch = BatchRequestSchema.parse(body);
      return {
        deviceIds: batch.devices,
        window: { startTime: batch.command.startTime, endTime: batch.command.endTime },
        request: batch,
      };
    },
    outcome: (body) => {
      const parsed = BatchSubmissionResponseSchema.safeParse(body);
      return parsed.success
        ? {
            outcome: { commands: parsed.data.commands },
            batchCommandId: parsed.data.batchCommandId,
          }
        : { outcome: {} };
    },
  },
  batchCancel: {
    kind: 'batchCancel',
    subject: ({ params }) => ({ batchCommandId: paramsOf(params).batchCommandId ?? '' }),
    outcome: (body) => {
      const parsed = BatchCancelResponseSchema.safeParse(body);
      return { outcome: parsed.success ? { results: parsed.data.results } : {} };
    },
  },
  bind: {
    kind: 'bind',
    subject: ({ body }) => ({ siteId: SiteBindingRequestSchema.parse(body).siteId }),
    outcome: () => ({ outcome: {} }),
  },
  unbind: {
    kind: 'unbind',
    subject: ({ body }) => ({ siteId: SiteBindingRequestSchema.parse(body).siteId }),
    outcome: () => ({ outcome: {} }),
  },
} satisfies Record<string, LedgerSpec>;
