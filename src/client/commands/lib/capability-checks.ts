import { checkCapabilities, type Capabilities, type CapabilityRange } from '#domain/device.ts';
import {
  controlRangeWords,
  POWER_CONTROL_PROPERTIES,
  type PowerControl,
  type PowerControlProperty,
} from '#domain/power-control.ts';
import { devicesRefusing, listDeviceIds, type CombinedRange } from './combined-ranges.ts';
import { POWER_CONTROL_WORDS, formatPropertyValue } from '../../lib/power-control-words.ts';

export interface CapabilityRefusal {
  property: PowerControlProperty;
  message: string;
}

/** The capabilities the command form writes for: one device, or every device of a batch. */
export interface CapabilityCheck {
  /** The control's input span, or `undefined` when no target device supports it (field disabled). */
  inputRange: (property: PowerControlProperty) => CapabilityRange | undefined;
  hint: (property: PowerControlProperty) => string;
  /** The typed controls that would be refused (docs/upstream.md, Commands), each with words why. */
  refusals: (powerControl: PowerControl) => CapabilityRefusal[];
}

/** `-5 kW to 5 kW`, `50% to 100%`: a capability range in words. */
export function rangeWords(property: PowerControlProperty, range: CapabilityRange): string {
  return `${formatPropertyValue(property, range.min)} to ${formatPropertyValue(property, range.max)}`;
}

/** `Range 50% to 100%`, `Range -5 kW to 5 kW (-5000 to 5000 W)`: the range as typed, too. */
function deviceRangeHint(property: PowerControlProperty, range: CapabilityRange): string {
  const words = `Range ${rangeWords(property, range)}`;
  return POWER_CONTROL_WORDS[property].unit === '%'
    ? words
    : `${words} (${range.min} to ${range.max} W)`;
}

function deviceRangeWords(property: PowerControlProperty, range: CapabilityRange): string {
  return `${POWER_CONTROL_WORDS[property].name} must be ${controlRangeWords(property, range)} on this device`;
}

/**
 * One device's check by the domain's `checkCapabilities` (docs/upstream.md, Commands and
 * Lifecycle); each refusal names the range and the value.
 */
export function deviceCapabilityCheck(capabilities: Capabilities): CapabilityCheck {
  return {
    inputRange: (property) => capabilities[property],
    hint: (property) => {
      const range = capabilities[property];
      return range ? deviceRangeHint(property, range) : 'Not supported by this device.';
    },
    refusals: (powerControl) =>
      checkCapabilities(powerControl, capabilities).map((violation) => ({
        property: violation.property,
        message:
          violation.kind === 'unsupported'
            ? `This device does not support ${POWER_CONTROL_WORDS[violation.property].name}`
            : `${deviceRangeWords(violation.property, violation.range)} (you entered ${violation.value})`,
      })),
  };
}

function combinedHint({ property, common, envelope, supporting, lacking }: CombinedRange): string {
  if (supporting.length + lacking.length === 0) return 'Select devices to see their range.';
  if (!envelope) return 'Not supported by any selected device.';
  const parts = [
    common
      ? `Fits every device that supports it: ${rangeWords(property, common)}`
      : `No value fits every device (ranges span ${rangeWords(property, envelope)})`,
  ];
  if (common && (common.min !== envelope.min || common.max !== envelope.max))
    parts.push(`some devices accept ${rangeWords(property, envelope)}`);
  if (lacking.length > 0)
    parts.push(
      `not supported by ${lacking.length} of ${supporting.length + lacking.length} (${listDeviceIds(lacking, 3)})`,
    );
  return `${parts.join('; ')}.`;
}

/**
 * A batch's check ({@link CombinedRange}): a value outside some devices' ranges names them, since
 * the upstream refuses the whole batch (docs/upstream.md, Batches); a lacking control is the
 * pre-check's (`notSupported`).
 */
export function combinedCapabilityCheck(
  combined: Record<PowerControlProperty, CombinedRange>,
): CapabilityCheck {
  return {
    inputRange: (property) => combined[property].envelope ?? undefined,
    hint: (property) => combinedHint(combined[property]),
    refusals: (powerControl) =>
      POWER_CONTROL_PROPERTIES.flatMap((property) => {
        const value = powerControl[property];
        if (value === undefined) return [];
        const refusing = devicesRefusing(combined[property], value);
        if (refusing.length === 0) return [];
        const { common } = combined[property];
        const fits = common
          ? ` Every selected device that supports it accepts ${rangeWords(property, common)}.`
          : ' The selected devices have no value in common: split the batch.';
        const devices = refusing.length === 1 ? 'device' : `${refusing.length} devices`;
        return [
          {
            property,
            message: `${POWER_CONTROL_WORDS[property].name} ${formatPropertyValue(property, value)} is outside the range of ${devices}: ${listDeviceIds(refusing)}.${fits}`,
          },
        ];
      }),
  };
}
