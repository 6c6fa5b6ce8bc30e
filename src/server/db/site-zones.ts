import { and, eq } from 'drizzle-orm';
import type { Region } from '#domain/token.ts';
import type { Database } from '#infra/database.ts';
import { ofAccount } from './account-rows.ts';
import { siteTimeZones } from './schema.ts';

/** A zone an administrator set for a site, with who set it and when (ISO 8601 UTC). */
export interface StoredSiteZone {
  timeZone: string;
  setBy?: string | undefined;
  setAt?: string | undefined;
}

/** Who set a zone: the display name, and the subject of a company sign-in. */
export interface ZoneSetter {
  name?: string | undefined;
  subject?: string | undefined;
}

/**
 * The site time zones administrators set (docs/decisions/006, section 6), per region, client
 * and site, kept in the BFF's database ({@link DatabaseSiteZones}).
 */
export interface SiteZones {
  zones(region: Region, clientId: string): Promise<ReadonlyMap<string, StoredSiteZone>>;
  set(
    key: { region: Region; clientId: string; siteId: string },
    timeZone: string,
    by: ZoneSetter,
    nowMs: number,
  ): Promise<void>;
  clear(key: { region: Region; clientId: string; siteId: string }): Promise<void>;
}

/** {@link SiteZones} in `bff.site_time_zones`, shared by every BFF instance of the database. */
export class DatabaseSiteZones implements SiteZones {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async zones(region: Region, clientId: string): Promise<ReadonlyMap<string, StoredSiteZone>> {
    const rows = await this.#db
      .select()
      .from(siteTimeZones)
      .where(ofAccount(siteTimeZones, { region, clientId }));
    return new Map(
      rows.map((row) => [
        row.siteId,
        {
          timeZone: row.timeZone,
          ...(row.setByName ? { setBy: row.setByName } : {}),
          setAt: row.setAt.toISOString(),
        },
      ]),
    );
  }

  async set(
    key: { region: Region; clientId: string; siteId: string },
    timeZone: string,
    by: ZoneSetter,
    nowMs: number,
  ): Promise<void> {
    const values = {
      timeZone,
      setByName: by.name ?? null,
      setBySubject: by.subject ?? null,
      setAt: new Date(nowMs),
    };
    await this.#db
      .insert(siteTimeZones)
      .values({ ...key, ...values })
      .onConflictDoUpdate({
        target: [siteTimeZones.region, siteTimeZones.clientId, siteTimeZones.siteId],
        set: values,
      });
  }

  async clear(key: { region: Region; clientId: string; siteId: string }): Promise<void> {
    await this.#db
      .delete(siteTimeZones)
      .where(and(ofAccount(siteTimeZones, key), eq(siteTimeZones.siteId, key.siteId)));
  }
}
