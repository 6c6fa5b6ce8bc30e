import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from 'react-router/dom';
import { createQueryClient } from './query-client.ts';
import { createAppRouter } from './router.tsx';
import { signInPathFrom } from './safe-next-path.ts';

const queryClient = createQueryClient({
  // The BFF session ended (signed out elsewhere, expired): forget everything, sign in again.
  onNotSignedIn: () => {
    const { location } = router.state;
    if (location.pathname === '/sign-in') return;
    queryClient.clear();
    void router.navigate(signInPathFrom(location), { replace: true });
  },
});
const router = createAppRouter(queryClient);

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  );
}
