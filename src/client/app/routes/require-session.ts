import type { QueryClient } from '@tanstack/react-query';
import { redirect, type LoaderFunctionArgs } from 'react-router';
import { sessionQueryOptions } from '../../features/session/api/get-session.ts';
import { isApiError } from '../../lib/api-error.ts';
import { signInPathFrom } from '../safe-next-path.ts';

/** Loader of the signed-in pages: anyone not signed in goes to sign-in, remembering where they were going. */
export const requireSession =
  (queryClient: QueryClient) =>
  async ({ request }: LoaderFunctionArgs) => {
    try {
      await queryClient.ensureQueryData(sessionQueryOptions());
      return null;
    } catch (error) {
      if (isApiError(error, 'not_signed_in')) throw redirect(signInPathFrom(new URL(request.url)));
      throw error;
    }
  };
