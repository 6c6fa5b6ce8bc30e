import { useMemo, useState } from 'react';
import type { DeviceCommand } from '#domain/command.ts';
import type { Site } from '#domain/device.ts';
import { splitIntoBatches } from '#domain/fleet-job.ts';
import { newIntentId, useCreateFleetJob } from '#client/commands/api/fleet-jobs.ts';
import { CommandForm } from '#client/commands/components/command-form.tsx';
import { DeliverableCheck } from '#client/commands/components/deliverable-panel.tsx';
import { combinedCapabilityCheck } from '#client/commands/lib/capability-checks.ts';
import { combineRanges } from '#client/commands/lib/combined-ranges.ts';
import { ErrorAlert } from '#client/components/error-alert.tsx';
import { Field } from '#client/components/field.tsx';
import { defaultCommandWindow } from '#client/lib/time.ts';
import { CANCELLATION_REASON_WORDS } from '#domain/words.ts';
import {
  devicesAtRisk,
  modelsOf,
  pastedDeviceIds,
  resolvePick,
  sharedTimeZone,
} from '../lib/fleet-selection.ts';
import { FleetSendConfirm } from './fleet-send-confirm.tsx';
import { DEFAULT_ROLLOUT_TEXT, RolloutFields, useRollout } from './rollout-fields.tsx';
import './fleet.css';

/**
 * A new fleet job (docs/fleet-dispatch.md): devices by site, model or pasted list, one command, and
 * the rollout; nothing is sent until the operator confirmed ({@link FleetSendConfirm}).
 */
export function FleetJobForm({
  sites,
  onCreated,
}: {
  sites: readonly Site[];
  onCreated: (jobId: string) => void;
}) {
  const [siteIds, setSiteIds] = useState<ReadonlySet<string>>(new Set());
  const [models, setModels] = useState<ReadonlySet<string>>(new Set());
  const [pasted, setPasted] = useState('');
  const [intent] = useState(newIntentId);
  const create = useCreateFleetJob(intent);
  const rollout = useRollout(DEFAULT_ROLLOUT_TEXT, create.reset);
  const parsedRollout = rollout.rollout;
  const resolved = useMemo(
    () => resolvePick(sites, { siteIds, models, pasted }),
    [sites, siteIds, models, pasted],
  );
  // Devices left out of the pick for not following their recent commands, until put back: the
  // job then names its devices one by one.
  const [leftOut, setLeftOut] = useState<readonly string[]>([]);
  const picked = useMemo(() => {
    if (leftOut.length === 0) return resolved;
    const out = new Set(leftOut);
    return {
      ...resolved,
      devices: resolved.devices.filter(({ device }) => !out.has(device.deviceId)),
    };
  }, [resolved, leftOut]);
  const pickedIds = useMemo(
    () => picked.devices.map(({ device }) => device.deviceId),
    [picked.devices],
  );
  const capabilityCheck = useMemo(
    () => combinedCapabilityCheck(combineRanges(picked.devices.map(({ device }) => device))),
    [picked.devices],
  );
  const [initialWindow] = useState(() => {
    const { start, end } = defaultCommandWindow(Date.now());
    return { startMs: start.getTime(), endMs: end.getTime() };
  });
  const zone = sharedTimeZone(picked.devices);
  const atRisk = useMemo(() => devicesAtRisk(picked.devices), [picked.devices]);
  const count = picked.devices.length;
  const batches =
    parsedRollout && count > 0
      ? splitIntoBatches(
          picked.devices.map(({ device }) => device.deviceId),
          parsedRollout.batchSize,
        ).length
      : 0;
  const minutes = parsedRollout && batches > 1 ? (batches - 1) / parsedRollout.batchesPerMinute : 0;
  const startLabel = `Start fleet job for ${count} device${count === 1 ? '' : 's'}`;
  const [confirming, setConfirming] = useState<DeviceCommand>();

  const toggle = (set: ReadonlySet<string>, value: string, on: boolean) => {
    const next = new Set(set);
    if (on) next.add(value);
    else next.delete(value);
    create.reset();
    return next;
  };

  return (
    <div className="stack">
      <section className="card stack" aria-labelledby="fleet-devices-heading">
        <h2 id="fleet-devices-heading">Devices</h2>
        <p>
          Pick sites, models or paste device IDs; a device picked more than once gets one command.
        </p>
        <div className="fleet-pick-grid">
          <fieldset>
            <legend>Sites</legend>
            {sites.map((site) => (
              <label key={site.siteId} className="check">
                <input
                  type="checkbox"
                  checked={siteIds.has(site.siteId)}
                  onChange={(event) =>
                    setSiteIds(toggle(siteIds, site.siteId, event.target.checked))
                  }
                />
                <span className="mono">{site.siteId}</span> {site.name} ({site.devices.length}{' '}
                devices, {site.timeZone})
              </label>
            ))}
          </fieldset>
          <fieldset>
            <legend>Models</legend>
            {modelsOf(sites).map(({ model, count: devices }) => (
              <label key={model} className="check">
                <input
                  type="checkbox"
                  checked={models.has(model)}
                  onChange={(event) => setModels(toggle(models, model, event.target.checked))}
                />
                <span className="mono">{model}</span> ({devices} devices)
              </label>
            ))}
          </fieldset>
          <Field
            id="fleet-pasted"
            label="Device IDs"
            hints={[
              'Paste IDs separated by commas, spaces or new lines.',
              picked.unknown.length > 0
                ? `Not in a bound site, so they get nothing: ${picked.unknown.slice(0, 10).join(', ')}${picked.unknown.length > 10 ? ` and ${picked.unknown.length - 10} more` : ''}.`
                : null,
            ]}
          >
            {(control) => (
              <textarea
                {...control}
                rows={6}
                value={pasted}
                onChange={(event) => {
                  setPasted(event.target.value);
                  create.reset();
                }}
              />
            )}
          </Field>
        </div>
        <p role="status" className="fleet-count">
          {count === 0
            ? 'No device picked yet.'
            : `${count} device${count === 1 ? '' : 's'} in ${batches} batch${batches === 1 ? '' : 'es'}` +
              (minutes > 0 ? `, sent over about ${Math.ceil(minutes)} min.` : '.')}
          {pastedDeviceIds(pasted).length > 0 && picked.unknown.length === 0
            ? ' Every pasted ID is in a bound site.'
            : ''}
        </p>
        {atRisk.offline.length > 0 || atRisk.faulted.length > 0 ? (
          <div className="notice notice-warning" data-testid="fleet-at-risk">
            {atRisk.offline.length > 0 ? (
              <p>
                <strong>{countWords(atRisk.offline.length)} offline</strong>: unless they come back
                before the start, their commands end cancelled, &ldquo;
                {CANCELLATION_REASON_WORDS.startTimeExpire}&rdquo;. {listWords(atRisk.offline)}
              </p>
            ) : null}
            {atRisk.faulted.length > 0 ? (
              <p>
                <strong>{countWords(atRisk.faulted.length)} faulted</strong>, as the vendor reports:
                unless the fault is cleared, their commands may end cancelled, &ldquo;
                {CANCELLATION_REASON_WORDS.deviceFault}&rdquo;. {listWords(atRisk.faulted)}
              </p>
            ) : null}
            <p>Leave them out of the pick, or send anyway.</p>
          </div>
        ) : null}
      </section>
      <section className="card stack" aria-labelledby="fleet-rollout-heading">
        <h2 id="fleet-rollout-heading">Rollout</h2>
        <RolloutFields idPrefix="fleet" rollout={rollout} />
      </section>
      <section className="card stack" aria-labelledby="fleet-command-heading">
        <h2 id="fleet-command-heading">Command</h2>
        <CommandForm
          idPrefix="fleet"
          label="Fleet command"
          capabilityCheck={capabilityCheck}
          timeZone={zone ?? 'UTC'}
          zoneNote={
            count > 0 && !zone
              ? 'The picked devices are in sites of different time zones, so the window is typed in UTC.'
              : count === 0
                ? 'Once devices are picked, the window is on their site’s clock.'
                : undefined
          }
          powerControlHelp="The same command goes to every picked device. Set at least one control; controls left empty keep each device's current settings."
          initial={initialWindow}
          submitLabel={startLabel}
          pendingLabel="Starting…"
          canSubmit={count > 0 && picked.unknown.length === 0 && parsedRollout !== undefined}
          beforeSubmit={(draft) => (
            <DeliverableCheck
              idPrefix="fleet"
              deviceIds={pickedIds}
              draft={draft}
              timeZone={zone ?? 'UTC'}
              onLeaveOut={(deviceIds) => {
                setLeftOut([...leftOut, ...deviceIds]);
                create.reset();
              }}
              leftOut={leftOut}
              onPutBack={() => {
                setLeftOut([]);
                create.reset();
              }}
            />
          )}
          pending={create.isPending}
          // Nothing is sent from here: the confirmation names what would go.
          onSubmit={(command) => setConfirming(command)}
        >
          {create.isError ? (
            <ErrorAlert
              error={create.error}
              what="The fleet job was not started; nothing was sent."
            />
          ) : null}
        </CommandForm>
        {confirming && parsedRollout ? (
          <FleetSendConfirm
            title={`Start a fleet job for ${count} device${count === 1 ? '' : 's'}?`}
            plan={{
              deviceIds: pickedIds,
              span: {
                startMs: Date.parse(confirming.startTime),
                endMs: Date.parse(confirming.endTime),
              },
              timeZone: zone,
              batchCount: batches,
              rollout: parsedRollout,
            }}
            confirmLabel={`Start sending to ${count} device${count === 1 ? '' : 's'}`}
            onDismiss={() => setConfirming(undefined)}
            onConfirm={() => {
              setConfirming(undefined);
              create.mutate(
                {
                  selection:
                    leftOut.length > 0
                      ? { siteIds: [], models: [], deviceIds: pickedIds }
                      : {
                          siteIds: [...siteIds],
                          models: [...models],
                          deviceIds: pastedDeviceIds(pasted),
                        },
                  command: confirming,
                  rollout: parsedRollout,
                },
                { onSuccess: (job) => onCreated(job.jobId) },
              );
            }}
          />
        ) : null}
      </section>
    </div>
  );
}

const countWords = (n: number) => `${n} picked device${n === 1 ? ' is' : 's are'}`;

const listWords = (ids: readonly string[]) =>
  `${ids.slice(0, 10).join(', ')}${ids.length > 10 ? ` and ${ids.length - 10} more` : ''}.`;
