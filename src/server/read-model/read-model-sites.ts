import { createHash } from 'node:crypto';
import type { SiteList } from '../../domain/device.ts';
import type { Queryable } from '../events/event-store.ts';
import { accountKey, type Account } from '../../domain/account.ts';
import type { BoundSite, RecordOptions } from '../ledger/device-commands-recorder.ts';
import { accountOf, type ReadModelCore } from './read-model-core.ts';

/**
 * Which sites, and so which devices, are bound to an account as the read model knows it
 * (docs/architecture.md, Read model; docs/security.md, Unbinding): a bind or unbind recorded by
 * the ledger, the site list read from the vendor, a device adopted from a site just checked. The
 * devices of a bound site are read and answered; those of an unbound one no more. A part of
 * `ReadModel` (`read-model.ts`), which is what others import.
 */
export class ReadModelSites {
  readonly #core: ReadModelCore;
  readonly #syncedSites = new Map<string, string>();

  constructor(core: ReadModelCore) {
    this.#core = core;
  }

  async recordSiteBound(account: Account, site: BoundSite): Promise<void> {
    account = accountOf(account);
    await this.#markBound(account, [site], 'change');
  }

  /**
   * The site's devices are read no more and nothing of them is answered from here on
   * (docs/security.md, Unbinding): this instance's status polls at once, every other instance's
   * once it hears of the `siteBindingsChanged` published here (their caches drop the account).
   * Everyone else on the account is notified, with the waiting and executing commands the
   * unbind leaves on the vendor.
   */
  async recordSiteUnbound(
    account: Account,
    siteId: string,
    options: RecordOptions = {},
  ): Promise<void> {
    account = accountOf(account);
    const notifications = this.#core.notifications;
    const unboundBy = options.madeBy;
    await this.#core.store.transaction(async (tx) => {
      // A site list read before this unbind lands after it in vain (see readSites).
      await this.#core.store.lockBindings(tx, account, true);
      // What the unbind leaves on the vendor, counted before its devices are read no more.
      const waitingCommands = await this.#core.store.openCommandsOfSite(tx, account, siteId);
      await this.#core.store.markSiteUnbound(tx, account, siteId, this.#core.now());
      await this.#bindingsChanged(tx, account, [siteId]);
      if (notifications && unboundBy)
        await notifications.notify(
          { account, kind: 'siteUnbound', siteId, waitingCommands, unboundBy },
          { tx },
        );
    });
    this.#syncedSites.delete(accountKey(account));
  }

  /**
   * Reads the account's site list with `read` (the vendor's `GET /sites`) and applies it: its
   * devices are bound (new ones read once, soon: their backfill), and the account's devices it
   * no longer lists are read no more. Written only when the list differs from the last one this
   * instance applied, and only when no bind or unbind was recorded for the account, on any
   * instance, since the read started: such an answer predates the change, and applying it would
   * take a site just bound out of reach or bring a site just unbound back (docs/architecture.md,
   * Read model). That list is left unapplied; the next read brings the bindings as they are.
   *
   * @returns the list as `read` answered it, applied or not.
   * @throws whatever `read` throws (nothing is applied then).
   */
  async readSites(account: Account, read: () => Promise<SiteList>): Promise<SiteList> {
    account = accountOf(account);
    const generation = await this.#core.store.bindingsGeneration(account);
    const list = await read();
    const sites = list.sites.map((site) => ({
      siteId: site.siteId,
      deviceIds: site.devices.map((device) => device.deviceId),
    }));
    const fingerprint = createHash('sha256').update(JSON.stringify(sites)).digest('base64');
    const key = accountKey(account);
    if (this.#syncedSites.get(key) === fingerprint) return list;
    if (!(await this.#markBound(account, sites, { listReadAt: generation }))) return list;
    if (this.#syncedSites.size > 10_000) this.#syncedSites.clear();
    this.#syncedSites.set(key, fingerprint);
    return list;
  }

  /** A device of a bound site the read model did not know yet (its site just checked). */
  async adoptDevice(account: Account, deviceId: string, siteId: string): Promise<void> {
    account = accountOf(account);
    await this.#markBound(account, [{ siteId, deviceIds: [deviceId] }], 'adopt');
  }

  /**
   * Marks `sites`' devices bound, as `how` says: a bind recorded (`change`: the account's
   * bindings generation moves on), a device adopted from a site list just checked (`adopt`), or a
   * whole site list read under generation `listReadAt`, whose unlisted devices are unbound. Such
   * a list is not applied when the generation moved on since (returns false).
   */
  async #markBound(
    account: Account,
    sites: readonly { siteId: string; deviceIds: readonly string[] }[],
    how: 'change' | 'adopt' | { listReadAt: number },
  ): Promise<boolean> {
    const nowMs = this.#core.now();
    const allBound = typeof how === 'object';
    return this.#core.store.transaction(async (tx) => {
      if (how !== 'adopt') {
        const generation = await this.#core.store.lockBindings(tx, account, how === 'change');
        if (allBound && generation !== how.listReadAt) {
          this.#core.log.debug(
            { region: account.region, clientId: account.clientId },
            'read model: a site list read before a bind or unbind is not applied',
          );
          return false;
        }
      }
      const { added, changed } = await this.#core.store.markBound(
        tx,
        account,
        sites,
        nowMs,
        allBound,
      );
      for (const deviceId of added) {
        const state = await this.#core.store.lockDevice(tx, account, deviceId, nowMs);
        await this.#core.plan(tx, account, deviceId, {
          nowMs,
          readAtMs: state.readAt?.getTime(),
          slotsRequested: state.slotsRequested,
          set: {},
        });
      }
      // A whole site list names no site: any may have been bound or unbound.
      if (changed)
        await this.#bindingsChanged(tx, account, allBound ? [] : sites.map((site) => site.siteId));
      return true;
    });
  }

  /**
   * Tells every instance and browser of the account that sites were bound or unbound, in `tx`:
   * other instances drop the account's devices from their caches (their bindings changed), open
   * pages read the site list again.
   */
  async #bindingsChanged(tx: Queryable, account: Account, siteIds: string[]): Promise<void> {
    await this.#core.events?.publish(
      account,
      { type: 'siteBindingsChanged', data: siteIds.length > 0 ? { siteIds } : {} },
      { tx },
    );
  }
}
