import type { FixtureDevice } from '../fixtures/fixture-types.ts';
import type { DeviceCondition } from '../model/lifecycle.ts';
import type { DeviceConditionEntity } from './persistence.ts';

/**
 * The devices whose condition (online, fault) the admin API changed; every other device is as
 * its fixture says, online or not and without a fault.
 */
export class DeviceConditions {
  private conditions = new Map<string, DeviceCondition>();

  /** The device's current condition. */
  of(device: FixtureDevice): DeviceCondition {
    return (
      this.conditions.get(device.deviceId) ?? { online: device.online, fault: false, sinceMs: 0 }
    );
  }

  /** Records a changed condition of a device. */
  set(deviceId: string, condition: DeviceCondition): void {
    this.conditions.set(deviceId, condition);
  }

  /** Replaces the conditions with persisted ones. */
  adopt(conditions: DeviceConditionEntity[]): void {
    this.conditions = new Map(
      conditions.map(({ deviceId, ...condition }) => [deviceId, condition]),
    );
  }
}
