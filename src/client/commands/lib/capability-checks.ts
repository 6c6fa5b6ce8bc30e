import {
  checkCapabilities,
  type Capabilities,
  type CapabilityRange,
} from '../../../domain/device.ts';
import {
  controlRangeWords,
  POWER_CONTROL_PROPERTIES,
  type PowerControl,
  type PowerControlProperty,
} from '../../../domain/power-control.ts';
import { devicesRefusing, listDeviceIds, type CombinedRange } from './combined-ranges.ts';
import { POWER_CONTROL_WORDS, formatPropertyValue } from '../../lib/power-control-words.ts';

/** A capability problem of one typed control, in words for its field. */
export interface CapabilityRefusal {
  property: PowerControlProperty;
  message: string;
}

/**
 * What the command form needs to know of the capabilities it writes for: one device, or every
 * device of a batch. The form and its schema are the same for both; only this differs.
 */
export interface CapabilityCheck {
  /**
   * The span the control's input offers (its `min`/`max`), or `undefined` when no device the
   * command goes to supports the control: the field is then disabled.
   */
  inputRange: (property: PowerControlProperty) => CapabilityRange | undefined;
  /** The range line under the control's field. */
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
 * The check for one device: its capability ranges by the domain's `checkCapabilities`
 * (docs/upstream.md, Commands: a value the schema allows is still refused outside the device's
 * range; Lifecycle: a control the device lacks would end `notSupported`). Each refusal names the
 * range and the value entered.
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
 * The check for a batch: each control against every selected device that supports it
 * ({@link CombinedRange}). A value outside some devices' ranges names those devices, because the
 * upstream refuses the whole batch for one of them (docs/upstream.md, Batches). A control some
 * devices lack is no refusal here: the batch pre-check flags it (`notSupported` ahead,
 * docs/upstream.md, Lifecycle).
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
