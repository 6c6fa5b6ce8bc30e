import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  MarkNotificationsReadAnswerSchema,
  type MarkNotificationsRead,
  type MarkNotificationsReadAnswer,
} from '#domain/notifications.ts';
import { apiRequest } from '#client/lib/api-client.ts';
import { notificationKeys } from './notification-keys.ts';

/** `POST /api/notifications/read`: marks some, or all up to the newest seen, read; the BFF tells other tabs. */
export function markNotificationsRead(
  request: MarkNotificationsRead,
): Promise<MarkNotificationsReadAnswer> {
  return apiRequest('/notifications/read', MarkNotificationsReadAnswerSchema, {
    method: 'POST',
    body: request,
  });
}

export function useMarkNotificationsRead() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: markNotificationsRead,
    onSettled: () => queryClient.invalidateQueries({ queryKey: notificationKeys.all }),
  });
}
