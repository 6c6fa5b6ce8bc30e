import type { UseQueryResult } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import type { EventDeviceVerdict, EventVerdictsAnswer } from '#domain/verdict-answer.ts';
import { VERDICTS } from '#domain/verdict.ts';
import { ErrorAlert } from '#client/components/error-alert.tsx';
import { Loading } from '#client/components/loading.tsx';
import { StaleDataNotice } from '#client/components/stale-data-notice.tsx';
import type { ApiError } from '#client/lib/api-error.ts';
import type { DeviceColumns } from '#client/lib/device-columns.ts';
import { FAILED_REFETCH_INTERVAL_MS } from '#client/lib/refetch-while-failing.ts';
import {
  deliveryFigure,
  NO_VERDICT_YET,
  pendingWords,
  VERDICT_CSV_FIELDS,
  verdictCsvCells,
  verdictFinder,
  verdictLineWords,
} from '../lib/event-delivery.ts';
import { LazyEventPowerChart } from './lazy-charts.tsx';
import { VerdictBadge, VerdictMeanings } from './verdict-badge.tsx';
import { VerdictCounts } from './verdict-counts.tsx';
import './verification.css';

/** What an empty or waiting Delivery section says first. */
export const VERDICTS_COME_WORDS = 'Verdicts come a minute after the window ends.';

/** The longest wait `setTimeout` keeps, ms (2^31 - 1); a longer one fires at once. */
const LONGEST_TIMEOUT_MS = 2_147_483_647;

/** Whether `atMs` (epoch ms) has passed, turning true when it does on a page left open. */
function usePassed(atMs: number): boolean {
  const [nowMs, setNowMs] = useState(() => Date.now());
  const passed = nowMs >= atMs;
  useEffect(() => {
    if (passed) return;
    const timer = setTimeout(
      () => setNowMs(Date.now()),
      Math.min(atMs - nowMs, LONGEST_TIMEOUT_MS),
    );
    return () => clearTimeout(timer);
  }, [atMs, nowMs, passed]);
  return passed;
}

const hasVerdicts = (answer: EventVerdictsAnswer | undefined) =>
  answer !== undefined && answer.devices > answer.pending;

/**
 * An event's delivery (a batch's, a fleet job's; docs/verification.md, Fleet figures): the big
 * figure of delivered against commanded energy, the commanded against delivered power over the
 * window on `timeZone`'s clock, the count of each verdict and how many devices still wait for
 * theirs. Shown once the window has ended or a verdict has come; loading, failure and "no
 * verdicts yet" as the device page's verdicts show them, a failed refresh keeping the figures.
 *
 * @param what the event as the words name it: `batch`, `fleet job`.
 * @param windowEndMs when the event's (last) window ends, epoch ms.
 */
export function EventDelivery({
  query,
  what,
  timeZone,
  windowEndMs,
}: {
  query: UseQueryResult<EventVerdictsAnswer, ApiError>;
  what: string;
  timeZone: string;
  windowEndMs: number;
}) {
  const headingId = useId();
  const windowEnded = usePassed(windowEndMs);
  const answer = query.data;
  if (!windowEnded && !hasVerdicts(answer)) return null;
  return (
    <section className="card stack event-delivery" aria-labelledby={headingId}>
      <h2 id={headingId}>Delivery</h2>
      {answer === undefined ? (
        query.isError ? (
          <ErrorAlert
            error={query.error}
            what={`Could not read the verdicts of the ${what}'s devices.`}
            timeZone={timeZone}
            onRetry={() => void query.refetch()}
          />
        ) : (
          <Loading what="Loading the verdicts…" />
        )
      ) : (
        <>
          <StaleDataNotice
            query={query}
            what={`the ${what}'s verdicts`}
            timeZone={timeZone}
            autoRetryMs={FAILED_REFETCH_INTERVAL_MS}
          />
          <DeliveryFigures answer={answer} what={what} timeZone={timeZone} />
        </>
      )}
    </section>
  );
}

function DeliveryFigures({
  answer,
  what,
  timeZone,
}: {
  answer: EventVerdictsAnswer;
  what: string;
  timeZone: string;
}) {
  const waiting = pendingWords(answer.pending);
  if (!hasVerdicts(answer))
    return (
      <p className="empty-state" role="status">
        {VERDICTS_COME_WORDS}{' '}
        {answer.devices === 0
          ? `No device command of the ${what} is known yet.`
          : `${answer.devices === 1 ? 'Its device has' : `None of its ${answer.devices} devices has`} one yet.`}
      </p>
    );
  const { figure, detail } = deliveryFigure(answer);
  const present = VERDICTS.filter((verdict) => answer.counts[verdict] > 0);
  return (
    <>
      <div className="delivery-figure">
        <p className="delivery-figure-main">{figure}</p>
        <p className="field-hint">{detail}</p>
      </div>
      <VerdictCounts counts={answer.counts} label={`Verdicts of the ${what}'s devices`} />
      {waiting ? (
        <p role="status" className="field-hint">
          {waiting}: {VERDICTS_COME_WORDS.toLowerCase()}
        </p>
      ) : null}
      <VerdictMeanings verdicts={present} />
      <LazyEventPowerChart points={answer.curve} stepMs={answer.stepMs} timeZone={timeZone} />
    </>
  );
}

/** A device's verdict in a table: its badge over {@link verdictLineWords}, or `No verdict yet`. */
export function DeviceVerdictCell({ verdict }: { verdict: EventDeviceVerdict | undefined }) {
  if (!verdict) return <span className="field-hint">{NO_VERDICT_YET}</span>;
  const line = verdictLineWords(verdict);
  return (
    <span className="device-verdict">
      <VerdictBadge verdict={verdict.verdict} />
      {line ? <small>{line}</small> : null}
    </span>
  );
}

/**
 * The verdict column of an event's device table and its CSV columns ({@link VERDICT_CSV_FIELDS}),
 * from its answer; `undefined` (no column) until the answer is read.
 */
export function verdictColumns(answer: EventVerdictsAnswer | undefined): DeviceColumns | undefined {
  if (!answer) return undefined;
  const find = verdictFinder(answer.verdicts);
  return {
    headings: ['Verdict'],
    cells: (deviceId, commandId) => [
      <DeviceVerdictCell key="verdict" verdict={find(deviceId, commandId)} />,
    ],
    csvFields: VERDICT_CSV_FIELDS,
    csvCells: (deviceId, commandId) => verdictCsvCells(find(deviceId, commandId)),
  };
}
