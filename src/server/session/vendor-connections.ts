import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { VendorConnectionInfo } from '#domain/connections.ts';
import { RegionSchema, type Region } from '#domain/token.ts';
import type { Database } from '#infra/database.ts';
import { vendorConnections } from '../db/schema.ts';
import type { ClientCredentials } from '../upstream/token-endpoint.ts';
import type { SecretBox } from './secret-box.ts';
import type { OperatorIdentity } from './session-store.ts';

/** Never answered to the browser. */
export interface VendorConnection {
  region: Region;
  clientId: string;
  /** Sealed at rest; sent only to the region's token endpoint. */
  clientSecret: string;
  updatedAtMs: number;
  /** A replaced connection gets a new key, so the old secret's token is not used any longer. */
  callerId: string;
}

const CONNECTION_CALLER_PREFIX = 'connection ';

/** Never has a space. */
export function isConnectionCaller(id: string): boolean {
  return id.startsWith(CONNECTION_CALLER_PREFIX);
}

/** As sessions (docs/security.md). */
const CONNECTION_CACHE_MS = 1_000;

/** docs/security.md: sealed with the region as associated data, so it cannot move to another row. */
export class VendorConnections {
  readonly #db: Database;
  readonly #box: SecretBox;
  readonly #cache = new Map<
    Region,
    { connection: VendorConnection | undefined; readAtMs: number }
  >();

  constructor(db: Database, box: SecretBox) {
    this.#db = db;
    this.#box = box;
  }

  /** Undefined when none, or its seal no longer opens. */
  async get(region: Region): Promise<VendorConnection | undefined> {
    const cached = this.#cache.get(region);
    if (cached && performance.now() - cached.readAtMs < CONNECTION_CACHE_MS)
      return cached.connection;
    const [row] = await this.#db
      .select()
      .from(vendorConnections)
      .where(eq(vendorConnections.region, region));
    let connection: VendorConnection | undefined;
    if (row) {
      try {
        const clientSecret = this.#box.open(row.secretCiphertext, associatedData(region));
        const updatedAtMs = row.updatedAt.getTime();
        connection = {
          region,
          clientId: row.clientId,
          clientSecret,
          updatedAtMs,
          callerId: `${CONNECTION_CALLER_PREFIX}${region} ${createHash('sha256').update(row.secretCiphertext).digest('base64url')}`,
        };
      } catch {
        // Sealed with another SESSION_KEY: as good as none; an administrator registers it again.
        connection = undefined;
      }
    }
    this.#cache.set(region, { connection, readAtMs: performance.now() });
    return connection;
  }

  async list(): Promise<VendorConnectionInfo[]> {
    const rows = await this.#db.select().from(vendorConnections);
    return rows.flatMap((row) => {
      const region = RegionSchema.safeParse(row.region);
      if (!region.success) return [];
      return [
        {
          region: region.data,
          clientId: row.clientId,
          updatedAt: row.updatedAt.toISOString(),
          ...(row.updatedByName ? { updatedBy: row.updatedByName } : {}),
        },
      ];
    });
  }

  async put(
    region: Region,
    credentials: ClientCredentials,
    by: OperatorIdentity,
    nowMs: number,
  ): Promise<void> {
    const values = {
      clientId: credentials.clientId,
      secretCiphertext: this.#box.seal(credentials.clientSecret, associatedData(region)),
      updatedAt: new Date(nowMs),
      updatedByName: by.name ?? by.email ?? by.subject,
      updatedBySubject: by.subject,
    };
    await this.#db
      .insert(vendorConnections)
      .values({ region, ...values })
      .onConflictDoUpdate({ target: vendorConnections.region, set: values });
    this.#cache.delete(region);
  }
}

function associatedData(region: Region): string {
  return `vendor connection ${region}`;
}
