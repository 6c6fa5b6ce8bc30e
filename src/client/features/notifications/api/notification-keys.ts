/** Query keys of the inbox: `list()` is `GET /api/notifications` page by page. */
export const notificationKeys = {
  all: ['notifications'] as const,
  list: () => [...notificationKeys.all, 'list'] as const,
};
