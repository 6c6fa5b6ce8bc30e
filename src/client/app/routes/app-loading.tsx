import { Loading } from '../../components/loading.tsx';

/** Shown while the first page's code loads. */
export function AppLoading() {
  return (
    <main className="page page-narrow">
      <Loading what="Loading powerdeck…" />
    </main>
  );
}
