import { describe, expect, it } from 'vitest';
import { CommandStatusResponseSchema } from '#domain/read-model.ts';
import { precompiledSerializerCompiler } from '../route-declarations.ts';

const serialize = precompiledSerializerCompiler({ schema: CommandStatusResponseSchema });

const answer = {
  id: 'CMD-1',
  deviceId: 'BAT-EU-100-01',
  powerControl: { targetBatteryPowerW: 1000 },
  startTime: '2026-11-21T02:00:00Z',
  endTime: '2026-11-21T02:30:00Z',
  status: 'received',
  receivedAt: '2026-11-20T02:00:00Z',
  device: { version: 3, readAt: '2026-11-21T01:59:00.000Z' },
};

describe('precompiledSerializerCompiler', () => {
  it('writes a status answer as the zod schema declares it, field for field', () => {
    expect(JSON.parse(serialize(answer))).toEqual(CommandStatusResponseSchema.parse(answer));
  });

  it('leaves out what the schema does not declare, nested objects included', () => {
    const written = JSON.parse(
      serialize({
        ...answer,
        clientSecret: 'never',
        powerControl: { ...answer.powerControl, token: 'never' },
        device: { ...answer.device, siteId: 'never' },
      }),
    );
    expect(written).toEqual(CommandStatusResponseSchema.parse(answer));
    expect(JSON.stringify(written)).not.toContain('never');
  });

  it('fails an answer that lacks a required field rather than sending it', () => {
    const withoutStatus: Partial<typeof answer> = { ...answer };
    delete withoutStatus.status;
    expect(() => serialize(withoutStatus)).toThrow(/status/);
  });
});
