import { Link, isRouteErrorResponse, useRouteError } from 'react-router';
import { isApiError } from '../../lib/api-error.ts';

/** Last resort for a page that could not load: what happened and how to get going again. */
export function RouteError() {
  const error = useRouteError();
  let detail = 'Something went wrong while showing this page.';
  if (isApiError(error)) detail = error.detail;
  else if (isRouteErrorResponse(error)) detail = `${error.status} ${error.statusText}`;
  else if (error instanceof TypeError && /import|module/i.test(error.message))
    detail = 'Part of powerdeck could not be loaded, perhaps because it was updated meanwhile.';
  return (
    <main className="page page-narrow">
      <title>Error · powerdeck</title>
      <h1>This page could not be shown</h1>
      <div role="alert" className="notice notice-error">
        <p>{detail}</p>
      </div>
      <p>
        <a href={window.location.href}>Reload the page</a> or go to the{' '}
        <Link to="/sites">Sites</Link> page.
      </p>
    </main>
  );
}
