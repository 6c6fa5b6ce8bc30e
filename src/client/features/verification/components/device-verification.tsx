import { useMemo, useState } from 'react';
import type { CommandVerdictRecord } from '#domain/verdict-answer.ts';
import { ErrorAlert } from '#client/components/error-alert.tsx';
import { Loading } from '#client/components/loading.tsx';
import { StaleDataNotice } from '#client/components/stale-data-notice.tsx';
import { FAILED_REFETCH_INTERVAL_MS } from '#client/lib/refetch-while-failing.ts';
import { useDeviceVerdicts, useWatchRunningWindows } from '../api/get-device-verdicts.ts';
import { recordsForChart } from '../lib/verdict-chart.ts';
import { LazyPowerSocChart } from './lazy-charts.tsx';
import { VerdictList } from './verdict-list.tsx';

/**
 * A device's verdicts on its device page (docs/verification.md): its battery power and state of
 * charge over the newest day of command windows, or over one window the operator chose, above the
 * list of every verdict. Loading, failure and "no verdicts yet" as the app's other reads show them.
 */
export function DeviceVerification({
  deviceId,
  timeZone,
  running = false,
}: {
  deviceId: string;
  timeZone: string;
  /** A command of the device runs now: its window is read as it goes, and shown judged so far. */
  running?: boolean;
}) {
  const verdicts = useDeviceVerdicts(deviceId);
  useWatchRunningWindows(deviceId, running);
  if (verdicts.data === undefined)
    return verdicts.isError ? (
      <ErrorAlert
        error={verdicts.error}
        what="Could not read the device's verdicts."
        timeZone={timeZone}
        onRetry={() => void verdicts.refetch()}
      />
    ) : (
      <Loading what="Loading the verdicts…" />
    );
  // A refresh that failed keeps the verdicts read before on screen, with a notice.
  return (
    <>
      <StaleDataNotice
        query={verdicts}
        what="the verdicts"
        timeZone={timeZone}
        autoRetryMs={FAILED_REFETCH_INTERVAL_MS}
      />
      <VerdictsAndChart
        records={[...(verdicts.data.running ?? []), ...verdicts.data.verdicts]}
        timeZone={timeZone}
      />
    </>
  );
}

function VerdictsAndChart({
  records,
  timeZone,
}: {
  records: readonly CommandVerdictRecord[];
  timeZone: string;
}) {
  const [focus, setFocus] = useState<string | null>(null);
  const charted = useMemo(
    () => (records.length === 0 ? [] : recordsForChart(records, focus)),
    [records, focus],
  );
  const focused = charted.length === 1 && charted[0]?.commandId === focus;
  return (
    <>
      {charted.length > 0 ? (
        <div className="stack">
          <p className="field-hint" aria-live="polite">
            {focused
              ? 'The chart shows the chosen window.'
              : 'The chart shows the command windows of the newest day with a verdict.'}{' '}
            {focused ? (
              <button type="button" className="small" onClick={() => setFocus(null)}>
                Chart the newest day
              </button>
            ) : null}
          </p>
          <LazyPowerSocChart records={charted} timeZone={timeZone} />
        </div>
      ) : null}
      <VerdictList
        records={records}
        timeZone={timeZone}
        chartedCommandId={focused ? focus : null}
        onChart={setFocus}
      />
    </>
  );
}
