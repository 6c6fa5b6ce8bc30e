import type { Region } from '#domain/token.ts';
import { overviewKeys } from './overview-keys.ts';

/**
 * Query keys of the fleet picture, generic to specific: every region's, one region's. Under
 * `overviewKeys.all`, so each event that moves the overview (a command, a batch, a fleet job: what
 * runs now) and the pushed `fleetPictureChanged` read it again; apart from `overviewKeys.region`,
 * so the overview's 5 s poll does not.
 */
export const fleetPictureKeys = {
  all: [...overviewKeys.all, 'fleetPicture'] as const,
  region: (region: Region) => [...fleetPictureKeys.all, region] as const,
};
