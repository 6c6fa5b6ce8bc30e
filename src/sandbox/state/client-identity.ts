import type { Region } from '#domain/token.ts';

/** Who is calling: a client of one region, from its bearer token. */
export interface ClientIdentity {
  clientId: string;
  region: Region;
}
