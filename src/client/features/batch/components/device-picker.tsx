import { useId, useState } from 'react';
import type { Site } from '#domain/device.ts';
import { Field } from '#client/components/field.tsx';
import { filterDevices, type SiteDevice } from '../lib/device-directory.ts';
import { ColumnHeads } from '#client/components/column-heads.tsx';

interface DevicePickerProps {
  sites: readonly Site[];
  directory: ReadonlyMap<string, SiteDevice>;
  selected: ReadonlySet<string>;
  onAdd: (deviceIds: string[]) => void;
  onRemove: (deviceIds: string[]) => void;
  onPaste: (text: string) => void;
}

/** The select-all button's words, counting what it adds (never "visible" when it is not). */
function selectAllLabel(visibleCount: number, notSelectedCount: number): string {
  if (notSelectedCount === visibleCount) return `Select all visible (${visibleCount})`;
  if (notSelectedCount === 0) return `All ${visibleCount} visible are in the batch`;
  return `Select the ${notSelectedCount} of ${visibleCount} visible not in the batch yet`;
}

/** Picks devices across bound sites (search, site filter, select all, paste); the caller keeps the batch rules. */
export function DevicePicker({
  sites,
  directory,
  selected,
  onAdd,
  onRemove,
  onPaste,
}: DevicePickerProps) {
  const [search, setSearch] = useState('');
  const [siteId, setSiteId] = useState('');
  const [pasted, setPasted] = useState('');
  const captionId = useId();
  const visible = filterDevices(directory.values(), search, siteId);
  const visibleNotSelected = visible.filter(({ device }) => !selected.has(device.deviceId));

  return (
    <section className="card stack" aria-labelledby={`${captionId}-heading`}>
      <h2 id={`${captionId}-heading`}>Pick devices</h2>
      <div className="form-grid">
        <Field id="batch-search" label="Search devices" hints={['ID, name or model']}>
          {(control) => (
            <input
              {...control}
              type="search"
              value={search}
              onChange={(event) => setSearch(event.target.value)}
            />
          )}
        </Field>
        <Field id="batch-site-filter" label="Site">
          {(control) => (
            <select {...control} value={siteId} onChange={(event) => setSiteId(event.target.value)}>
              <option value="">All bound sites</option>
              {sites.map((site) => (
                <option key={site.siteId} value={site.siteId}>
                  {site.name} ({site.siteId})
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <div className="actions">
        <button
          type="button"
          disabled={visibleNotSelected.length === 0}
          onClick={() => onAdd(visibleNotSelected.map(({ device }) => device.deviceId))}
        >
          {selectAllLabel(visible.length, visibleNotSelected.length)}
        </button>
      </div>
      {visible.length === 0 ? (
        <p className="empty-state">No device matches this search.</p>
      ) : (
        <div className="table-scroll batch-picker-list">
          <table>
            <caption id={captionId}>
              {visible.length} device{visible.length === 1 ? '' : 's'} shown
            </caption>
            <ColumnHeads columns={['In batch', 'Device', 'Site', 'Connection']} />
            <tbody>
              {visible.map(({ device, site }) => {
                const checked = selected.has(device.deviceId);
                return (
                  <tr key={device.deviceId}>
                    <td>
                      <input
                        type="checkbox"
                        id={`pick-${device.deviceId}`}
                        checked={checked}
                        aria-label={`Include ${device.deviceId}`}
                        onChange={() =>
                          checked ? onRemove([device.deviceId]) : onAdd([device.deviceId])
                        }
                      />
                    </td>
                    <td>
                      <label htmlFor={`pick-${device.deviceId}`}>
                        <span className="mono">{device.deviceId}</span> {device.name}
                      </label>
                    </td>
                    <td>{site.siteId}</td>
                    <td>
                      {device.faulted ? (
                        <span className="device-fault">
                          <span aria-hidden="true">⚠ </span>Faulted,{' '}
                        </span>
                      ) : null}
                      {connectionWords(device.online, device.faulted === true)}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <form
        className="stack"
        onSubmit={(event) => {
          event.preventDefault();
          onPaste(pasted);
          setPasted('');
        }}
      >
        <Field
          id="batch-paste"
          label="Paste device IDs"
          hints={['Separated by commas, spaces or line breaks.']}
        >
          {(control) => (
            <textarea
              {...control}
              rows={3}
              value={pasted}
              onChange={(event) => setPasted(event.target.value)}
            />
          )}
        </Field>
        <div className="actions">
          <button type="submit" disabled={pasted.trim() === ''}>
            Add pasted IDs
          </button>
        </div>
      </form>
    </section>
  );
}

function connectionWords(online: boolean | undefined, afterFault: boolean): string {
  const words = online === false ? 'Offline' : online === true ? 'Online' : 'Unknown';
  return afterFault ? words.toLowerCase() : words;
}
