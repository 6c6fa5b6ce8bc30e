import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from 'react-router/dom';
import { createQueryClient } from './query-client.ts';
import { createAppRouter } from './router.tsx';
import { sendToSignIn } from './safe-next-path.ts';

const queryClient = createQueryClient({ onNotSignedIn: () => sendToSignIn(router, queryClient) });
const router = createAppRouter(queryClient);

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  );
}
