import type { FleetJob } from '#domain/fleet-job.ts';
import { factsFromLedger, OVERVIEW_RECENT_HOURS, type OverviewFacts } from '#domain/overview.ts';
import { accountOf } from '#domain/account.ts';
import { toLedgerEntry } from '../ledger/ledger-rows.ts';
import type { Ledger } from '../ledger/ledger.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import type { Session } from '../session/session-store.ts';
import type { SiteDirectory } from '../upstream/site-directory.ts';
import { withUnboundDevices } from './unbound-devices.ts';

/**
 * Where the overview's facts come from (docs/architecture.md, Overview): one call per view, never
 * one to the vendor per device (docs/upstream.md, Rate limit).
 *
 * The contract, for a later implementation (the read model of every device's commands):
 * - Nothing of a device on no bound site (its site unbound since, docs/security.md, Unbinding):
 *   the client may no longer reach it.
 * - `commands`: the account's device commands whose window ends after `sinceMs` or that were
 *   refused or cancelled after it, each with its last known vendor status when one is known
 *   (absent: the overview places it by its window), a cancellation's reason, and a refusal in
 *   operator words. Commands sent outside powerdeck may be included; completed ones may be left
 *   out.
 * - `batches`: the account's batches whose window ends after `sinceMs`, with their device counts
 *   (one whose every device's site was unbound is left out).
 * - `fleetJobs`: the account's fleet jobs (the overview keeps those not final).
 * - `sites`: the bound sites with their devices as the vendor last listed them (names, zones,
 *   `online` and `faulted`).
 *
 * @throws a ProblemError when the site list cannot be read (the route answers it).
 */
export interface OverviewSource {
  read(session: Session, sinceMs: number): Promise<OverviewFacts>;
}

/** What {@link LedgerOverviewSource} reads. */
export interface LedgerOverviewDeps {
  ledger: Ledger;
  readModel: ReadModel;
  sites: SiteDirectory;
  /** The session's client's fleet jobs as stored (no upstream read). */
  fleetJobs: (session: Session) => Promise<FleetJob[]>;
  /** The BFF's own clock, epoch ms, on which ledger leases run out. */
  now: () => number;
}

/** Most ledger entries one overview reads (newest first). */
export const OVERVIEW_LEDGER_ENTRIES = 2000;

/** The first {@link OverviewSource}, from what the BFF holds (docs/architecture.md, Overview). */
export class LedgerOverviewSource implements OverviewSource {
  readonly #deps: LedgerOverviewDeps;

  constructor(deps: LedgerOverviewDeps) {
    this.#deps = deps;
  }

  async read(session: Session, sinceMs: number): Promise<OverviewFacts> {
    const { ledger, readModel, sites, fleetJobs, now } = this.#deps;
    const [sitesList, rows, jobs] = await Promise.all([
      sites.siteList(session),
      ledger.store.recentCommandEntries(session, sinceMs, OVERVIEW_LEDGER_ENTRIES),
      fleetJobs(session),
    ]);
    const nowMs = now();
    // A batch's devices whose site is unbound are over for it, as on its batch page.
    const entries = await withUnboundDevices(
      readModel,
      session,
      rows.map((row) => toLedgerEntry(row, nowMs)),
    );
    // The commands the ledger names are gathered first, so the read model is asked once.
    const refs = factsFromLedger(entries, () => undefined).commands.flatMap((c) =>
      c.commandId === undefined ? [] : [{ deviceId: c.deviceId, commandId: c.commandId }],
    );
    const read = await readModel.commands(accountOf(session), refs);
    const { commands, batches } = factsFromLedger(entries, (deviceId, commandId) => {
      const record = read.get(`${deviceId} ${commandId}`);
      return (
        record && {
          status: record.status,
          cancelReason: record.cancelReason,
          endedAt: record.cancelledAt,
        }
      );
    });
    // Every accepted command is in the read model from the vendor's answer on: one the ledger
    // holds but the read model does not is one the upstream forgot (the sandbox's reset), never
    // one to show. Refusals have no command and stay.
    const known = commands.filter(
      (c) => c.commandId === undefined || read.has(`${c.deviceId} ${c.commandId}`),
    );
    // The ledger keeps what was sent to a site's devices after the site is unbound (the audit);
    // the overview shows only devices the client can still reach: those its site list names.
    const reachable = new Set(
      sitesList.flatMap((site) => site.devices.map((device) => device.deviceId)),
    );
    return {
      commands: known.filter((c) => reachable.has(c.deviceId)),
      batches: batches.filter((b) => b.deviceIds.some((deviceId) => reachable.has(deviceId))),
      fleetJobs: jobs,
      sites: sitesList,
    };
  }
}

/** The start of the overview's look back at `nowMs`, epoch ms. */
export const overviewSince = (nowMs: number) => nowMs - OVERVIEW_RECENT_HOURS * 3_600_000;
