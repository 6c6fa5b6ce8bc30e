import type { CommandVerdictRecord } from '#domain/verdict-answer.ts';
import { VERDICTS } from '#domain/verdict.ts';
import { ColumnHeads } from '#client/components/column-heads.tsx';
import { describePowerControl } from '#client/lib/power-control-words.ts';
import { formatInZone, formatWindowInZone, formatWindowUtc, zoneLabel } from '#client/lib/time.ts';
import { energyWords } from '../lib/verdict-words.ts';
import { VerdictBadge, VerdictMeanings } from './verdict-badge.tsx';
import './verification.css';

/** Says there is no verdict yet and when one comes. */
export function NoVerdictsYet() {
  return (
    <p className="empty-state">
      <strong>No verdicts yet</strong>: a verdict comes a minute after a command&apos;s window ends.
    </p>
  );
}

interface VerdictListProps {
  /** Newest window first, as the BFF answers them. */
  records: readonly CommandVerdictRecord[];
  timeZone: string;
  /** The command whose window the chart shows alone, if any. */
  chartedCommandId?: string | null | undefined;
  /** Shows one command's window alone on the chart; without it, no button. */
  onChart?: ((commandId: string) => void) | undefined;
}

/**
 * A device's verdicts, newest window first: each command's window on the site's clock (UTC
 * under it), its power control in words, its verdict (with the alarms of a cancellation), the
 * energy delivered against commanded and the share of the window measured.
 */
export function VerdictList({ records, timeZone, chartedCommandId, onChart }: VerdictListProps) {
  if (records.length === 0) return <NoVerdictsYet />;
  const shown = VERDICTS.filter((verdict) =>
    records.some((record) => record.result.verdict === verdict),
  );
  return (
    <div className="verdict-list">
      <div className="table-scroll">
        <table>
          <caption className="visually-hidden">Verdicts, newest window first</caption>
          <ColumnHeads
            columns={[
              `Window (${zoneLabel(timeZone)})`,
              'Power control',
              'Verdict',
              'Delivered against commanded',
              'Measured',
              onChart ? <span className="visually-hidden">Chart</span> : null,
            ]}
          />
          <tbody>
            {records.map((record) => {
              const charted = record.commandId === chartedCommandId;
              const window = formatWindowInZone(record.startTime, record.endTime, timeZone);
              return (
                <tr key={record.commandId} aria-current={charted ? 'true' : undefined}>
                  <td>
                    {window}
                    <span className="secondary-line">
                      {formatWindowUtc(record.startTime, record.endTime)}
                    </span>
                  </td>
                  <td>{describePowerControl(record.powerControl)}</td>
                  <td>
                    <VerdictBadge verdict={record.result.verdict} />
                    {record.running ? (
                      <span className="secondary-line">
                        So far: still running, measured to {formatInZone(record.judgedTo, timeZone)}
                      </span>
                    ) : null}
                    {record.result.alarms.map((alarm) => (
                      <span key={alarm.alarmCode} className="secondary-line">
                        Alarm: {alarm.alarmName}
                      </span>
                    ))}
                  </td>
                  <td>{energyWords(record.result)}</td>
                  <td>
                    {Math.round(record.result.coverage * 100)}%
                    <span className="secondary-line">
                      {record.result.samples.present} of {record.result.samples.expected} samples
                    </span>
                  </td>
                  {onChart ? (
                    <td>
                      <button
                        type="button"
                        className="small"
                        aria-pressed={charted}
                        aria-label={`Chart this window, ${window}`}
                        onClick={() => onChart(record.commandId)}
                      >
                        Chart this window
                      </button>
                    </td>
                  ) : null}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <VerdictMeanings verdicts={shown} />
    </div>
  );
}
