import { useState, type ReactNode } from 'react';
import { Button, FileTrigger } from 'react-aria-components';
import type { Site } from '#domain/device.ts';
import { groupPlanIntoBatches } from '#domain/dispatch-plan.ts';
import { splitIntoBatches, type FleetPlanCheck, type FleetRollout } from '#domain/fleet-job.ts';
import { parsePowerControlValue, POWER_CONTROL_PROPERTIES } from '#domain/power-control.ts';
import { newIntentId } from '#client/commands/api/fleet-jobs.ts';
import { useCheckFleetPlan, useCreateFleetPlanJob } from '#client/commands/api/fleet-plans.ts';
import { ErrorAlert } from '#client/components/error-alert.tsx';
import { Loading } from '#client/components/loading.tsx';
import { describePowerControl, POWER_CONTROL_WORDS } from '#client/lib/power-control-words.ts';
import { formatWindowInZone, formatWindowUtc } from '#client/lib/time.ts';
import type { PlanRowInput } from '#domain/dispatch-plan.ts';
import {
  checkPlanFile,
  PlanFileError,
  planTimeParser,
  readPlanFile,
  type PlanFile,
} from '../lib/plan-file.ts';
import { FleetSendConfirm, type FleetSendPlan } from './fleet-send-confirm.tsx';
import { DEFAULT_ROLLOUT_TEXT, RolloutFields, useRollout } from './rollout-fields.tsx';
import './fleet.css';
import { ColumnHeads } from '#client/components/column-heads.tsx';

export interface CheckedPlanRow {
  line: number;
  deviceId: string;
  command?: FleetPlanCheck['accepted'][number]['command'];
  reasons?: string[];
  /** The row as the file wrote it, shown when it is refused. */
  written?: PlanRowInput;
  /** The row's effective window, epoch ms, when its times could be read (always when sendable). */
  window?: { startMs: number; endMs: number };
}

function rowsWord(count: number): string {
  return `${count} row${count === 1 ? '' : 's'}`;
}

/**
 * Dispatch plan upload (docs/fleet-dispatch.md, Dispatch plans): each row checked here with the
 * domain rule, then by the server against the devices' commands; refused rows listed with reasons
 * and dropped, the rest sent as one job once confirmed ({@link FleetSendConfirm}).
 */
export function FleetPlanUpload({
  sites,
  onCreated,
  preview,
}: {
  sites: readonly Site[];
  onCreated: (jobId: string) => void;
  /** What to show of the checked rows above their table (the route's timeline of ghost bars). */
  preview?: (rows: readonly CheckedPlanRow[]) => ReactNode;
}) {
  const [fileName, setFileName] = useState<string>();
  const [fileProblem, setFileProblem] = useState<string>();
  const [rows, setRows] = useState<CheckedPlanRow[]>();
  const [intent] = useState(newIntentId);
  const check = useCheckFleetPlan();
  const create = useCreateFleetPlanJob(intent);
  const rollout = useRollout(DEFAULT_ROLLOUT_TEXT, create.reset);
  const [confirming, setConfirming] = useState(false);
  const zoneOf = new Map(
    sites.flatMap((site) => site.devices.map((d) => [d.deviceId, site.timeZone])),
  );

  const choose = async (files: FileList | null) => {
    const file = files?.[0];
    if (!file) return;
    setFileName(file.name);
    setFileProblem(undefined);
    setRows(undefined);
    check.reset();
    create.reset();
    let local;
    let written: Map<number, PlanRowInput>;
    let plan: PlanFile;
    try {
      plan = readPlanFile(file.name, await file.text());
      written = new Map(plan.rows.map((row) => [row.line, row]));
      local = checkPlanFile(plan, sites, Date.now());
    } catch (error) {
      if (!(error instanceof PlanFileError)) throw error;
      setFileProblem(error.message);
      return;
    }
    const remote =
      local.accepted.length > 0
        ? await check.mutateAsync(local.accepted).catch(() => undefined)
        : { accepted: [], refused: [] };
    if (!remote) return;
    const parseTime = planTimeParser(plan.clocks);
    const refused = [...local.refused, ...remote.refused].map((row) => {
      const input = written.get(row.line);
      const zone = zoneOf.get(row.deviceId) ?? 'UTC';
      const startMs = input ? parseTime(input.start, 'start', zone) : Number.NaN;
      const endMs = input ? parseTime(input.end, 'end', zone) : Number.NaN;
      return {
        ...row,
        written: input,
        ...(Number.isNaN(startMs) || Number.isNaN(endMs) ? {} : { window: { startMs, endMs } }),
      };
    });
    const sendable = remote.accepted.map((row) => ({
      ...row,
      window: {
        startMs: Date.parse(row.command.startTime),
        endMs: Date.parse(row.command.endTime),
      },
    }));
    setRows([...sendable, ...refused].sort((a, b) => a.line - b.line));
  };

  const accepted = (rows ?? []).filter((row) => row.command);
  const refusedCount = (rows?.length ?? 0) - accepted.length;
  const sendLabel =
    refusedCount > 0
      ? `Drop ${refusedCount} refused and send ${rowsWord(accepted.length)}`
      : `Send ${rowsWord(accepted.length)}`;

  return (
    <section aria-labelledby="plan-heading" className="fleet-plan">
      <h2 id="plan-heading">Dispatch plan from a file</h2>
      <p>
        A CSV file with a header row, or a JSON list of rows, with the columns <code>deviceId</code>
        , <code>start_utc</code> or <code>start_site</code>, <code>end_utc</code> or{' '}
        <code>end_site</code>, and the controls (<code>targetBatteryPowerW</code>,{' '}
        <code>chargeCutoffSocPercent</code>, …). A column ending in <code>_utc</code> holds UTC
        times such as <code>2026-11-24 17:00Z</code>; one ending in <code>_site</code> holds times
        on the device&apos;s site clock such as <code>2026-11-24 18:00</code>.
      </p>
      <FileTrigger
        acceptedFileTypes={['.csv', '.json', 'text/csv', 'application/json']}
        onSelect={(files) => void choose(files)}
      >
        <Button>Choose a plan file…</Button>
      </FileTrigger>
      {fileName ? <p className="hint">Plan file: {fileName}</p> : null}
      {fileProblem ? (
        <div role="alert" className="notice notice-error">
          <p>
            <strong>This file cannot be read as a plan.</strong> {fileProblem}
          </p>
        </div>
      ) : null}
      {check.isPending ? <Loading what="Checking the rows against the devices' commands…" /> : null}
      {check.isError ? (
        <ErrorAlert error={check.error} what="The plan could not be checked." />
      ) : null}
      {!fileName ? (
        <p className="empty-state">No plan chosen yet.</p>
      ) : rows ? (
        <>
          <p role="status">
            {accepted.length} of {rows.length} rows can be sent; {refusedCount} refused.
          </p>
          {preview?.(rows)}
          <table className="plan-rows">
            <caption>Checked rows</caption>
            <ColumnHeads columns={['Line', 'Device', 'Window (site clock)', 'Controls', 'Check']} />
            <tbody>
              {rows.map((row) => (
                <tr key={row.line} className={row.command ? undefined : 'plan-row-refused'}>
                  <td>{row.line}</td>
                  <td className="mono">{row.deviceId}</td>
                  <td>
                    {row.window ? (
                      <>
                        {formatWindowInZone(
                          row.window.startMs,
                          row.window.endMs,
                          zoneOf.get(row.deviceId) ?? 'UTC',
                        )}
                        <br />
                        <span className="hint">
                          {formatWindowUtc(row.window.startMs, row.window.endMs)}
                        </span>
                      </>
                    ) : (
                      <span className="hint">
                        as written: {row.written?.start} – {row.written?.end}
                      </span>
                    )}
                  </td>
                  <td>
                    {row.command
                      ? describePowerControl(row.command.powerControl)
                      : writtenControlsInWords(row.written?.controls ?? {})}
                  </td>
                  <td>
                    {row.command ? 'Can be sent' : `Refused: ${row.reasons?.join('; ') ?? ''}`}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {create.isError ? (
            <ErrorAlert error={create.error} what="The plan was not sent." />
          ) : null}
          {accepted.length > 0 ? (
            <section aria-labelledby="plan-rollout-heading" className="stack">
              <h3 id="plan-rollout-heading">Rollout</h3>
              <RolloutFields idPrefix="plan" rollout={rollout} />
            </section>
          ) : null}
          {accepted.length > 0 ? (
            <>
              <Button
                className="primary"
                isDisabled={create.isPending || !rollout.rollout}
                // Nothing is sent from here: the confirmation names what would go.
                onPress={() => setConfirming(true)}
              >
                {sendLabel}
              </Button>
              {confirming && rollout.rollout ? (
                <FleetSendConfirm
                  title={`Send ${rowsWord(accepted.length)} of this plan?`}
                  plan={sendPlan(accepted, zoneOf, rollout.rollout)}
                  confirmLabel={`Send ${rowsWord(accepted.length)} now`}
                  onDismiss={() => setConfirming(false)}
                  onConfirm={() => {
                    setConfirming(false);
                    if (!rollout.rollout) return;
                    create.mutate(
                      {
                        rows: accepted.flatMap(({ line, deviceId, command }) =>
                          command ? [{ line, deviceId, command }] : [],
                        ),
                        rollout: rollout.rollout,
                      },
                      { onSuccess: (job) => onCreated(job.jobId) },
                    );
                  }}
                />
              ) : null}
            </>
          ) : (
            <p className="empty-state">No row of this plan can be sent.</p>
          )}
        </>
      ) : null}
    </section>
  );
}

/** What the rows to send amount to: devices, windows' span, shared zone, and batches as the server makes them (`groupPlanIntoBatches`). */
function sendPlan(
  rows: readonly CheckedPlanRow[],
  zoneOf: ReadonlyMap<string, string>,
  rollout: FleetRollout,
): FleetSendPlan {
  const planRows = rows.flatMap(({ line, deviceId, command }) =>
    command ? [{ line, deviceId, command }] : [],
  );
  const batchCount = groupPlanIntoBatches(planRows).reduce(
    (sum, batch) => sum + splitIntoBatches(batch.deviceIds, rollout.batchSize).length,
    0,
  );
  const windows = rows.flatMap((row) => (row.window ? [row.window] : []));
  const zones = new Set(rows.map((row) => zoneOf.get(row.deviceId) ?? 'UTC'));
  return {
    deviceIds: [...new Set(rows.map((row) => row.deviceId))],
    span: {
      startMs: Math.min(...windows.map((w) => w.startMs)),
      endMs: Math.max(...windows.map((w) => w.endMs)),
    },
    timeZone: zones.size === 1 ? [...zones][0] : undefined,
    batchCount,
    rollout,
  };
}

/** A refused row's controls in words; a cell that cannot be read is quoted, as it may be the refusal. */
function writtenControlsInWords(controls: PlanRowInput['controls']): string {
  return POWER_CONTROL_PROPERTIES.flatMap((property) => {
    const cell = controls[property]?.trim();
    if (cell === undefined || cell === '') return [];
    const read = parsePowerControlValue(property, cell);
    return [
      'value' in read
        ? describePowerControl({ [property]: read.value })
        : `${POWER_CONTROL_WORDS[property].name} “${cell}”`,
    ];
  }).join(', ');
}
