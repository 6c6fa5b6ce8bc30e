import { Link } from 'react-router';

export function NotFoundRoute() {
  return (
    <main className="page page-narrow">
      <title>Page not found · powerdeck</title>
      <h1>Page not found</h1>
      <p>
        There is nothing at this address. Go to the <Link to="/sites">Sites</Link> page.
      </p>
    </main>
  );
}
