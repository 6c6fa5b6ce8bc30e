/**
 * Query keys of the signed-in person's notification inbox, generic to specific: `list()` is the
 * inbox read page by page (`GET /api/notifications`), newest first, with the unread count.
 */
export const notificationKeys = {
  all: ['notifications'] as const,
  list: () => [...notificationKeys.all, 'list'] as const,
};
