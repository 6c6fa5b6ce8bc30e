import { createHash } from 'node:crypto';
import type { SiteList } from '#domain/device.ts';
import type { Queryable } from '../events/event-store.ts';
import { accountKey, type Account } from '#domain/account.ts';
import type { BoundSite, RecordOptions } from '../ledger/device-commands-recorder.ts';
import { webhookLinks } from '../webhooks/webhook-links.ts';
import { accountOf, type ReadModelCore } from './read-model-core.ts';

/**
 * Which sites, and so devices, are bound to an account as the read model knows it
 * (docs/security.md, Unbinding). A part of `ReadModel`.
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
   * Other instances stop answering once they hear `siteBindingsChanged`. Everyone else on the
   * account is notified, with the commands the unbind leaves on the vendor.
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
      const waitingCommands = await this.#core.store.openCommandsOfSite(tx, account, siteId);
      await this.#core.store.markSiteUnbound(tx, account, siteId, this.#core.now());
      await this.#bindingsChanged(tx, account, [siteId]);
      await this.#core.webhooks?.record(
        account,
        {
          type: 'site.unbound',
          data: { siteId, state: 'unbound', links: { sites: webhookLinks.sites() } },
        },
        { tx },
      );
      if (notifications && unboundBy)
        await notifications.notify(
          { account, kind: 'siteUnbound', siteId, waitingCommands, unboundBy },
          { tx },
        );
    });
    this.#syncedSites.delete(accountKey(account));
  }

  /**
   * Applied only when no bind or unbind was recorded for the account since the read started: such
   * an answer would take a site just bound out of reach or bring one just unbound back.
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

  async adoptDevice(account: Account, deviceId: string, siteId: string): Promise<void> {
    account = accountOf(account);
    await this.#markBound(account, [{ siteId, deviceIds: [deviceId] }], 'adopt');
  }

  /** Returns false for a whole site list read under an older generation (`listReadAt`): not applied. */
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
      if (changed)
        await this.#bindingsChanged(tx, account, allBound ? [] : sites.map((site) => site.siteId));
      return true;
    });
  }

  /** Other instances drop the account's devices from their caches; open pages read the list again. */
  async #bindingsChanged(tx: Queryable, account: Account, siteIds: string[]): Promise<void> {
    await this.#core.events?.publish(
      account,
      { type: 'siteBindingsChanged', data: siteIds.length > 0 ? { siteIds } : {} },
      { tx },
    );
  }
}
