import { queryOptions, useQuery } from '@tanstack/react-query';
import { FleetPictureSchema, type FleetPicture } from '#domain/fleet-picture.ts';
import type { Region } from '#domain/token.ts';
import { apiRequest } from '#client/lib/api-client.ts';
import { refetchWhileFailing } from '#client/lib/refetch-while-failing.ts';
import { fleetPictureKeys } from './fleet-picture-keys.ts';

/**
 * Fleet picture poll while shown, ms: the fallback of the pushed `fleetPictureChanged`, which
 * refetches it at once. The BFF reads each device's latest sample every few minutes
 * (docs/verification.md, Fleet picture), so a faster poll would show nothing new.
 */
export const FLEET_PICTURE_POLL_MS = 60_000;

/** `GET /api/fleet-picture?region=`: the fleet now, aggregated by the BFF (sites and attention lines capped at 100). */
export function getFleetPicture(region: Region, signal?: AbortSignal): Promise<FleetPicture> {
  return apiRequest(
    `/fleet-picture?${new URLSearchParams({ region }).toString()}`,
    FleetPictureSchema,
    { signal },
  );
}

export const fleetPictureQueryOptions = (region: Region) =>
  queryOptions({
    queryKey: fleetPictureKeys.region(region),
    queryFn: ({ signal }) => getFleetPicture(region, signal),
    // Kept on screen when a refresh fails (StaleDataNotice), tried again meanwhile.
    refetchInterval: refetchWhileFailing(FLEET_PICTURE_POLL_MS),
  });

export const useFleetPicture = (region: Region | undefined) =>
  useQuery({ ...fleetPictureQueryOptions(region ?? 'eu'), enabled: region !== undefined });
