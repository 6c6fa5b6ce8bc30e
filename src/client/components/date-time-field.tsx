import { now, parseAbsolute, type ZonedDateTime } from '@internationalized/date';
import { useImperativeHandle, useMemo, useRef, type Ref } from 'react';
import {
  Button,
  Calendar,
  CalendarCell,
  CalendarGrid,
  DateInput,
  DatePicker,
  DateSegment,
  Dialog,
  Group,
  Heading,
  I18nProvider,
  Popover,
} from 'react-aria-components';
import { isKnownTimeZone, toUtcTimestamp } from '../lib/time.ts';
import './date-time-field.css';
import './popover.css';

/** What a form may do with a {@link DateTimeField}: focus it (react-hook-form does on an error). */
export interface DateTimeFieldHandle {
  focus: () => void;
}

export interface DateTimeFieldProps {
  id?: string;
  /** The visible label's ID (`Field` gives it as `labelId`), so the field and each segment are named. */
  'aria-labelledby'?: string | undefined;
  /** A name when there is no visible label (prefer `aria-labelledby`). */
  'aria-label'?: string;
  'aria-describedby'?: string | undefined;
  'aria-invalid'?: true | undefined;
  /** The instant as ISO 8601 UTC (`2026-11-21T01:00:00Z`), or `''`; any ISO string with an offset is read. */
  value: string;
  /** The instant typed or picked, whole minutes, ISO UTC; `''` while empty or partly typed. */
  onChange: (value: string) => void;
  onBlur?: () => void;
  /** IANA zone whose clock the field shows and is typed on; a zone the browser lacks falls back to UTC. */
  timeZone: string;
  isDisabled?: boolean;
  calendarLabel?: string;
  ref?: Ref<DateTimeFieldHandle>;
}

const usableZone = (timeZone: string) => (isKnownTimeZone(timeZone) ? timeZone : 'UTC');

function toZonedValue(value: string, timeZone: string): ZonedDateTime | null {
  if (!value) return null;
  try {
    return parseAbsolute(value, timeZone);
  } catch {
    return null;
  }
}

/**
 * A date and time typed on a site's clock (React Aria's `DatePicker`, docs/decisions/003-component-kit.md):
 * 24-hour segments, the zone's offset shown, a calendar button. Value in and out is ISO UTC, so no
 * caller converts clocks; a skipped time resolves forward, a repeated one to its first occurrence.
 * Name the zone and give the UTC equivalent in the label or `Field` hints (read as its description).
 */
export function DateTimeField({
  value,
  onChange,
  onBlur,
  timeZone,
  isDisabled,
  calendarLabel = 'Choose date',
  ref,
  ...aria
}: DateTimeFieldProps) {
  const zone = usableZone(timeZone);
  const zoned = useMemo(() => toZonedValue(value, zone), [value, zone]);
  // Typing into an empty field starts from today on the site's clock, to the minute.
  const placeholder = useMemo(() => now(zone).set({ second: 0, millisecond: 0 }), [zone]);
  const groupRef = useRef<HTMLDivElement>(null);
  useImperativeHandle(ref, () => ({
    focus: () => groupRef.current?.querySelector<HTMLElement>('[role="spinbutton"]')?.focus(),
  }));

  return (
    // en-CA writes dates year first (2026-11-21), as every other time on the screens.
    <I18nProvider locale="en-CA">
      <DatePicker<ZonedDateTime>
        className="date-time-field"
        id={aria.id}
        aria-label={aria['aria-label']}
        aria-labelledby={aria['aria-labelledby']}
        aria-describedby={aria['aria-describedby']}
        isInvalid={aria['aria-invalid'] === true}
        isDisabled={isDisabled}
        value={zoned}
        placeholderValue={placeholder}
        granularity="minute"
        hourCycle={24}
        shouldForceLeadingZeros
        onChange={(next) => onChange(next ? toUtcTimestamp(next.toDate()) : '')}
        onBlur={onBlur}
      >
        <Group className="date-time-field-group" ref={groupRef}>
          <DateInput className="date-time-field-input">
            {(segment) => <DateSegment segment={segment} className="date-time-field-segment" />}
          </DateInput>
          <Button className="date-time-field-button" aria-label={calendarLabel}>
            <svg aria-hidden="true" viewBox="0 0 16 16" width="16" height="16">
              <path
                d="M4 1v2M12 1v2M2 5h12M3 3h10a1 1 0 0 1 1 1v9a1 1 0 0 1-1 1H3a1 1 0 0 1-1-1V4a1 1 0 0 1 1-1z"
                fill="none"
                stroke="currentColor"
                strokeWidth="1.5"
                strokeLinecap="round"
              />
            </svg>
          </Button>
        </Group>
        <Popover className="popover date-time-field-popover" placement="bottom end" offset={4}>
          <Dialog className="date-time-field-dialog" aria-label={calendarLabel}>
            {/* Weeks start on Monday, as on the European and Australian sites' calendars (ISO 8601). */}
            <Calendar className="calendar" firstDayOfWeek="mon">
              <header className="calendar-header">
                <Button slot="previous" className="small" aria-label="Previous month">
                  <span aria-hidden="true">‹</span>
                </Button>
                <Heading className="calendar-heading" />
                <Button slot="next" className="small" aria-label="Next month">
                  <span aria-hidden="true">›</span>
                </Button>
              </header>
              <CalendarGrid className="calendar-grid">
                {(date) => <CalendarCell date={date} className="calendar-cell" />}
              </CalendarGrid>
            </Calendar>
          </Dialog>
        </Popover>
      </DatePicker>
    </I18nProvider>
  );
}
