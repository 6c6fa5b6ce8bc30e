import type { Capabilities } from '#domain/device.ts';
import { POWER_CONTROL_PROPERTIES } from '#domain/power-control.ts';
import { POWER_CONTROL_WORDS, formatPropertyValue } from '#client/lib/power-control-words.ts';

/** Each supported control's range and the lacking ones (docs/upstream.md, Commands). */
export function CapabilityList({ capabilities }: { capabilities: Capabilities }) {
  return (
    <dl className="facts capabilities">
      {POWER_CONTROL_PROPERTIES.map((property) => {
        const range = capabilities[property];
        return (
          <div key={property}>
            <dt>{POWER_CONTROL_WORDS[property].name}</dt>
            <dd>
              {range ? (
                `${formatPropertyValue(property, range.min)} to ${formatPropertyValue(property, range.max)}`
              ) : (
                <span className="secondary">not supported</span>
              )}
            </dd>
          </div>
        );
      })}
    </dl>
  );
}
