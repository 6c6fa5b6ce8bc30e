import type {
  NotificationFacts,
  NotifiedCancellationReason,
  QueuedChange,
  QueuedChangeFailedReason,
  WithdrawalReason,
} from '#domain/notifications.ts';
import { personKey, type Account, type Actor, type Person } from '#domain/account.ts';
import type { Role } from '#domain/roles.ts';

/**
 * Who receives which notification, and its words: the table in docs/architecture.md,
 * Notifications. A command an operator cancelled, or cancelled for overlap, is not notified: the
 * operator saw the answer when they acted.
 */

type Facts<K extends NotificationFacts['kind']> = Extract<NotificationFacts, { kind: K }>;

/** `madeBy` undefined for a command not sent through powerdeck; `withdrawnBy` undefined: powerdeck withdrew it. */
export type NotifyInput = { account: Account } & (
  | (Facts<'commandCancelled'> & { madeBy: Person | undefined })
  | (Facts<'batchDevicesFailed'> & { madeBy: Person })
  | (Facts<'fleetJobDevicesFailed'> & { madeBy: Person })
  | (Facts<'queuedChangeSent'> & { madeBy: Person })
  | (Facts<'queuedChangeWithdrawn'> & { madeBy: Person; withdrawnBy: Actor | undefined })
  | (Facts<'queuedChangeFailed'> & { madeBy: Actor })
  | (Facts<'siteUnbound'> & { unboundBy: Actor })
  | (Facts<'commandNotFollowed'> & { madeBy: Person | undefined })
  | (Facts<'deviceSilentInWindow'> & { madeBy: Person | undefined })
  | (Facts<'eventUnderDelivered'> & { madeBy: Person })
  | Facts<'webhookEndpointDisabled'>
);

export type Audience =
  | { kind: 'person'; person: Person }
  | { kind: 'everyone'; except?: Person | undefined }
  /** Everyone of the account whose role is `role` or above. */
  | { kind: 'role'; role: Role }
  | { kind: 'nobody' };

export interface NotificationPlan {
  audience: Audience;
  facts: NotificationFacts;
  title: string;
  body: string;
  /** The SPA's routes, `src/client/app/router.tsx`. */
  link: string;
  timeZone?: string | undefined;
  window?: { startTime: string; endTime: string } | undefined;
}

const CANCELLED_TITLE: Record<NotifiedCancellationReason, string> = {
  deviceFault: 'device fault',
  notSupported: 'control not supported',
  startTimeExpire: 'device did not start',
};

const CANCELLED_BODY: Record<NotifiedCancellationReason, string> = {
  deviceFault:
    'The device reported a fault, so its command was cancelled. Check the device before scheduling the command again.',
  notSupported:
    'The device does not support a power control the command asked for, so the command was cancelled when it was due to start. Schedule it again with a control the device supports.',
  startTimeExpire:
    'The device was still offline a minute after the start time, so the command was cancelled. Check its connection, then schedule the command again.',
};

const CHANGE_WORDS: Record<QueuedChange, string> = {
  submit: 'command',
  cancel: 'cancellation',
  replace: 'window change',
  undo: 'undo',
  batch: 'batch',
  batchCancel: 'batch cancellation',
};

function devicesWords(deviceId: string, deviceCount: number | undefined): string {
  const more = (deviceCount ?? 1) - 1;
  return more > 0 ? `${deviceId} and ${more} more device${more === 1 ? '' : 's'}` : deviceId;
}

const WITHDRAWN_BODY: Record<Exclude<WithdrawalReason, 'operator'>, string> = {
  windowPassed:
    'Its window began before the device had a free slot with the vendor, so it was not sent. Schedule it again with a later window.',
  siteUnbound: 'Its site was unbound before it could be sent, so it was not sent.',
};

const FAILED_TITLE: Record<QueuedChangeFailedReason, string> = {
  refused: 'refused by the vendor',
  not_sent: 'not sent',
};

const FAILED_BODY: Record<QueuedChangeFailedReason, string> = {
  refused:
    "It waited for the device's next free slot with the vendor, which refused it when it went.",
  not_sent: "It waited for the device's next free slot with the vendor, then could not be sent.",
};

export function samePerson(a: Person, b: Person): boolean {
  return personKey(a) === personKey(b);
}

/** Pure: each rule is tested (`__tests__/notification-rules.test.ts`). */
export function planNotification(input: NotifyInput): NotificationPlan {
  switch (input.kind) {
    case 'commandCancelled': {
      const { kind, deviceId, commandId, cancelReason, siteId, timeZone, startTime, endTime } =
        input;
      return {
        audience: input.madeBy ? { kind: 'person', person: input.madeBy } : { kind: 'everyone' },
        facts: { kind, deviceId, commandId, cancelReason, siteId, timeZone, startTime, endTime },
        title: `Command on ${deviceId} cancelled: ${CANCELLED_TITLE[cancelReason]}`,
        body: CANCELLED_BODY[cancelReason],
        link: deviceLink(siteId, deviceId),
        timeZone,
        window: windowOf(startTime, endTime),
      };
    }
    case 'batchDevicesFailed': {
      const { kind, batchCommandId, failedDevices, totalDevices, siteId, timeZone } = input;
      return {
        audience: { kind: 'person', person: input.madeBy },
        facts: { kind, batchCommandId, failedDevices, totalDevices, siteId, timeZone },
        title: `Batch: ${failedOf(failedDevices, totalDevices)}`,
        body: 'Open the batch to see which devices failed and why; the other devices hold their command.',
        link: `/batches/${encodeURIComponent(batchCommandId)}`,
        timeZone,
      };
    }
    case 'fleetJobDevicesFailed': {
      const { kind, jobId, failedDevices, totalDevices } = input;
      return {
        audience: { kind: 'person', person: input.madeBy },
        facts: { kind, jobId, failedDevices, totalDevices },
        title: `Fleet job: ${failedOf(failedDevices, totalDevices)}`,
        body: 'Open the fleet job to see which devices failed and why; the other devices hold their command.',
        link: `/fleet-jobs/${encodeURIComponent(jobId)}`,
      };
    }
    case 'queuedChangeSent': {
      const { kind, change, deviceId, deviceCount, commandId, siteId, timeZone } = input;
      const { startTime, endTime } = input;
      return {
        audience: { kind: 'person', person: input.madeBy },
        facts: {
          kind,
          change,
          deviceId,
          deviceCount,
          commandId,
          siteId,
          timeZone,
          startTime,
          endTime,
        },
        title: `Queued ${CHANGE_WORDS[change]} for ${devicesWords(deviceId, deviceCount)} sent`,
        body: "It waited for the device's next free slot with the vendor and has now been sent.",
        link: deviceLink(siteId, deviceId),
        timeZone,
        window: windowOf(startTime, endTime),
      };
    }
    case 'queuedChangeWithdrawn': {
      const { kind, change, deviceId, deviceCount, reason, siteId, timeZone } = input;
      const { startTime, endTime, withdrawnBy } = input;
      const byThemselves =
        withdrawnBy !== undefined && samePerson(withdrawnBy.person, input.madeBy);
      return {
        audience: byThemselves ? { kind: 'nobody' } : { kind: 'person', person: input.madeBy },
        facts: {
          kind,
          change,
          deviceId,
          deviceCount,
          reason,
          siteId,
          timeZone,
          startTime,
          endTime,
        },
        title: `Queued ${CHANGE_WORDS[change]} for ${devicesWords(deviceId, deviceCount)} withdrawn`,
        body:
          reason === 'operator'
            ? `${nameOf(withdrawnBy)} withdrew it before it was sent.`
            : WITHDRAWN_BODY[reason],
        link: deviceLink(siteId, deviceId),
        timeZone,
        window: windowOf(startTime, endTime),
      };
    }
    case 'queuedChangeFailed': {
      const { kind, change, deviceId, deviceCount, failure, detail, siteId, timeZone } = input;
      const { startTime, endTime } = input;
      return {
        audience: { kind: 'everyone' },
        facts: {
          kind,
          change,
          deviceId,
          deviceCount,
          failure,
          detail,
          siteId,
          timeZone,
          startTime,
          endTime,
        },
        title: `Queued ${CHANGE_WORDS[change]} for ${devicesWords(deviceId, deviceCount)} ${FAILED_TITLE[failure]}`,
        body: `${FAILED_BODY[failure]} ${detail}${madeByWords(input.madeBy)}`,
        link: deviceLink(siteId, deviceId),
        timeZone,
        window: windowOf(startTime, endTime),
      };
    }
    case 'commandNotFollowed': {
      const { kind, deviceId, commandId, deliveredPercent, siteId, timeZone } = input;
      const { startTime, endTime } = input;
      return {
        audience: input.madeBy ? { kind: 'person', person: input.madeBy } : { kind: 'everyone' },
        facts: {
          kind,
          deviceId,
          commandId,
          deliveredPercent,
          siteId,
          timeZone,
          startTime,
          endTime,
        },
        title: `${deviceId} did not follow its command`,
        body: `The device was online and measured through its window, but its battery power did not follow the command${deliveredPercentWords(deliveredPercent)}. Check the device's operation mode and connection before counting on it in the next event.`,
        link: deviceLink(siteId, deviceId),
        timeZone,
        window: windowOf(startTime, endTime),
      };
    }
    case 'deviceSilentInWindow': {
      const { kind, deviceId, commandId, measuredPercent, siteId, timeZone } = input;
      const { startTime, endTime } = input;
      return {
        audience: input.madeBy ? { kind: 'person', person: input.madeBy } : { kind: 'everyone' },
        facts: { kind, deviceId, commandId, measuredPercent, siteId, timeZone, startTime, endTime },
        title: `${deviceId} went silent during its command`,
        body: `The vendor has measurements of ${measuredPercent}% of the window only, too few to say whether the battery followed: the device was offline or not reporting. Check its connection.`,
        link: deviceLink(siteId, deviceId),
        timeZone,
        window: windowOf(startTime, endTime),
      };
    }
    case 'eventUnderDelivered': {
      const { kind, batchCommandId, jobId, deliveredPercent, thresholdPercent, totalDevices } =
        input;
      const { siteId, timeZone, startTime, endTime } = input;
      const what = jobId ? 'Fleet job' : 'Batch';
      return {
        audience: { kind: 'person', person: input.madeBy },
        facts: {
          kind,
          batchCommandId,
          jobId,
          deliveredPercent,
          thresholdPercent,
          totalDevices,
          siteId,
          timeZone,
          startTime,
          endTime,
        },
        title: `${what} delivered ${deliveredPercent}% of what was commanded`,
        body: `Its ${totalDevices} ${totalDevices === 1 ? 'device' : 'devices'} gave ${deliveredPercent}% of the commanded energy, below the ${thresholdPercent}% expected. Open it to see each device's verdict.`,
        link: jobId
          ? `/fleet-jobs/${encodeURIComponent(jobId)}`
          : batchCommandId
            ? `/batches/${encodeURIComponent(batchCommandId)}`
            : '/batches',
        timeZone,
        window: windowOf(startTime, endTime),
      };
    }
    case 'siteUnbound': {
      const { kind, siteId, siteName, waitingCommands } = input;
      const site = siteName ? `${siteName} (${siteId})` : siteId;
      return {
        audience: { kind: 'everyone', except: input.unboundBy.person },
        facts: { kind, siteId, siteName, waitingCommands },
        title: `Site ${site} unbound`,
        body: `${nameOf(input.unboundBy)} unbound it${leftRunningWords(waitingCommands)}. Its devices and their commands are out of reach until the site is bound again on the Sites page.`,
        link: '/sites',
      };
    }
    case 'webhookEndpointDisabled': {
      const { kind, endpointId, url, reason } = input;
      // Only an administrator can mend and enable it again.
      return {
        audience: { kind: 'role', role: 'admin' },
        facts: { kind, endpointId, url, reason },
        title: `Webhook to ${url} disabled`,
        body:
          reason === 'gone'
            ? 'Its address answered that it is gone, so nothing more is sent to it. Enable it again on the Webhooks page once the address takes events again.'
            : 'Every attempt to deliver an event to it failed for about three days, so nothing more is sent to it. Mend the address, enable it again on the Webhooks page and redeliver the failed deliveries.',
        link: '/webhooks',
      };
    }
  }
}

/** An unbind cancels nothing (docs/architecture.md, Ledger). */
function leftRunningWords(waitingCommands: number | undefined): string {
  if (!waitingCommands) return '';
  const one = waitingCommands === 1;
  return `, leaving ${waitingCommands} waiting or executing command${one ? '' : 's'} on the vendor: ${one ? 'it still runs' : 'they still run'} there, and powerdeck can no longer follow or cancel ${one ? 'it' : 'them'}`;
}

function deliveredPercentWords(deliveredPercent: number | undefined): string {
  return deliveredPercent === undefined
    ? ''
    : ` (it gave ${deliveredPercent}% of the commanded energy)`;
}

function failedOf(failed: number, total: number): string {
  return `${failed} of ${total} ${total === 1 ? 'device' : 'devices'} failed`;
}

function deviceLink(siteId: string | undefined, deviceId: string): string {
  return siteId
    ? `/sites/${encodeURIComponent(siteId)}/devices/${encodeURIComponent(deviceId)}`
    : '/sites';
}

function windowOf(
  startTime: string | undefined,
  endTime: string | undefined,
): { startTime: string; endTime: string } | undefined {
  return startTime && endTime ? { startTime, endTime } : undefined;
}

/** Everyone of the account reads it. */
function madeByWords(actor: Actor): string {
  const name = actor.name ?? (actor.person.kind === 'named' ? actor.person.name : undefined);
  return name ? ` Made by ${name}.` : '';
}

function nameOf(actor: Actor | undefined): string {
  if (!actor) return 'powerdeck';
  if (actor.name) return actor.name;
  switch (actor.person.kind) {
    case 'named':
      return actor.person.name;
    case 'client':
      return 'An operator who signed in without a name';
    case 'operator':
      return 'Another operator';
  }
}
