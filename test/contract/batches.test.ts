import { describe, expect, it } from 'vitest';
import { useContractTarget } from './support/contract-target.ts';
import {
  batchCommandsOf,
  CHARGE_3KW,
  expectError,
  historyIds,
  HOUR_MS,
  statusOf,
  submit,
  submitBatch,
} from './support/steps.ts';
import { BatchCancelAnswerSchema, SiteSchema } from '#sandbox/vendor/schemas.ts';

/**
 * Batches (docs/upstream.md, Batches): the answer names no device command, so each is found in
 * its device's history; what refuses a whole batch; the batch cancel's per-device results and its
 * 409.
 */
const target = useContractTarget();

function secondDevice(context: Parameters<typeof target.requireSetting>[0]): string {
  return target.requireSetting(context, target.config.secondDeviceId, 'CONTRACT_SECOND_DEVICE_ID');
}

describe('batch submission (docs/upstream.md, Batches)', () => {
  it('answers 202 with the batch ID only; each device got one received command, found in its history', async (context) => {
    const devices = [target.config.deviceId, secondDevice(context)];
    const window = target.window(0, HOUR_MS);
    const batch = await submitBatch(target, devices, window);
    expect(batch.batchCommandId.length).toBeGreaterThan(0);
    for (const deviceId of devices) {
      const commands = await batchCommandsOf(target, deviceId, window, batch);
      expect(commands).toHaveLength(1);
      expect(commands[0]).toMatchObject({ status: 'received', powerControl: CHARGE_3KW });
    }
  });

  it('a batch naming an unknown device is refused with 404 and creates no command', async () => {
    const deviceId = target.config.deviceId;
    const historyBefore = await historyIds(target, deviceId);
    expectError(
      await target.upstream.submitBatch({
        devices: [deviceId, 'NO-SUCH-DEVICE-0'],
        command: { powerControl: CHARGE_3KW, ...target.window(0, HOUR_MS) },
      }),
      404,
      'NOT_FOUND',
    );
    expect(await historyIds(target, deviceId)).toEqual(historyBefore);
  });

  it('a batch naming a device of a site not bound to the client is refused with 404 (not yours) and creates no command', async (context) => {
    const otherSiteId = target.requireSetting(
      context,
      target.config.otherSiteId,
      'CONTRACT_OTHER_SITE_ID',
    );
    await target.upstream.bindSite(otherSiteId);
    const site = SiteSchema.parse((await target.upstream.getSite(otherSiteId)).body);
    await target.upstream.unbindSite(otherSiteId);
    const deviceId = target.config.deviceId;
    const historyBefore = await historyIds(target, deviceId);
    expectError(
      await target.upstream.submitBatch({
        devices: [deviceId, site.devices?.[0]?.id],
        command: { powerControl: CHARGE_3KW, ...target.window(0, HOUR_MS) },
      }),
      404,
      'NOT_FOUND',
    );
    expect(await historyIds(target, deviceId)).toEqual(historyBefore);
  });

  it("a batch with targetBatteryPowerW beyond one device's kW data is refused with 422 and creates no command", async () => {
    const deviceId = target.config.deviceId;
    const historyBefore = await historyIds(target, deviceId);
    // The refused batch spends a slot of the device too (docs/upstream.md, Rate limit).
    await target.nextMinute();
    expectError(
      await target.upstream.submitBatch({
        devices: [deviceId],
        command: { powerControl: { targetBatteryPowerW: 1_000_000 }, ...target.window(0, HOUR_MS) },
      }),
      422,
      'CAPABILITY_EXCEEDED',
    );
    expect(await historyIds(target, deviceId)).toEqual(historyBefore);
  });
});

describe('batch cancel (docs/upstream.md, Batches)', () => {
  it('cancelling a pending batch cancels every device, one result each with its command ID', async (context) => {
    const devices = [target.config.deviceId, secondDevice(context)];
    const window = target.window(0, HOUR_MS);
    const batch = await submitBatch(target, devices, window);
    const response = await target.upstream.cancelBatch(batch.batchCommandId);
    expect(response.status).toBe(200);
    await target.nextMinute();
    const answer = BatchCancelAnswerSchema.parse(response.body);
    expect(answer.batchCommandId).toBe(batch.batchCommandId);
    expect(answer.results.map((result) => result.deviceId).sort()).toEqual([...devices].sort());
    expect(answer.results.every((result) => result.status === 'cancelled')).toBe(true);
    for (const { deviceId, commandId } of answer.results)
      expect(await statusOf(target, deviceId, commandId)).toMatchObject({
        status: 'cancelled',
        cancellReason: 'manuallyCancel',
      });
  });

  it('batch cancellation with partial failure: per-device results, cancelled and failed (docs/upstream.md, Batches)', async (context) => {
    const deviceId = target.config.deviceId;
    const secondDeviceId = secondDevice(context);
    const window = target.window(0, HOUR_MS);
    const batch = await submitBatch(target, [deviceId, secondDeviceId], window);
    const [first] = await batchCommandsOf(target, deviceId, window, batch);
    await target.nextMinute();
    expect((await target.upstream.cancelCommand(deviceId, first?.id ?? '')).status).toBe(200);
    const response = await target.upstream.cancelBatch(batch.batchCommandId);
    expect(response.status).toBe(200);
    const { results } = BatchCancelAnswerSchema.parse(response.body);
    expect(results).toHaveLength(2);
    const failed = results.find((result) => result.deviceId === deviceId);
    const succeeded = results.find((result) => result.deviceId === secondDeviceId);
    expect(failed).toMatchObject({ commandId: first?.id, status: 'failed' });
    expect(failed?.message.length).toBeGreaterThan(0);
    expect(succeeded?.status).toBe('cancelled');
  });

  it('a device whose window overlapped fails in the batch cancel, the others are cancelled', async (context) => {
    const deviceId = target.config.deviceId;
    const secondDeviceId = secondDevice(context);
    const window = target.window(0, HOUR_MS);
    await submit(target, deviceId, window);
    const batch = await submitBatch(target, [deviceId, secondDeviceId], window);
    await target.nextMinute();
    const { results } = BatchCancelAnswerSchema.parse(
      (await target.upstream.cancelBatch(batch.batchCommandId)).body,
    );
    expect(results.map((result) => [result.deviceId, result.status])).toEqual([
      [deviceId, 'failed'],
      [secondDeviceId, 'cancelled'],
    ]);
  });

  it('cancelling a batch whose every command has completed answers 409 BATCH_NOT_CANCELLABLE', async (context) => {
    const admin = target.requireAdmin(context, 'let a batch complete');
    const window = target.window(0, HOUR_MS);
    const batch = await submitBatch(target, [target.config.deviceId], window);
    await admin.setClock(window.endTime);
    expectError(
      await target.upstream.cancelBatch(batch.batchCommandId),
      409,
      'BATCH_NOT_CANCELLABLE',
    );
  });

  it('cancelling a batch twice answers 409 BATCH_NOT_CANCELLABLE the second time', async () => {
    const batch = await submitBatch(target, [target.config.deviceId], target.window(0, HOUR_MS));
    expect((await target.upstream.cancelBatch(batch.batchCommandId)).status).toBe(200);
    await target.nextMinute();
    expectError(
      await target.upstream.cancelBatch(batch.batchCommandId),
      409,
      'BATCH_NOT_CANCELLABLE',
    );
  });
});
