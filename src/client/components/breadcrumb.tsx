import type { ReactNode } from 'react';
import { Link } from 'react-router';

/** A step of a breadcrumb: a link where `to` is given, else plain words (a site has no page). */
export interface Crumb {
  label: ReactNode;
  to?: string;
}

/** The breadcrumb above a page's heading: `trail` from the top, then the page itself, marked current. */
export function Breadcrumb({ trail, current }: { trail: readonly Crumb[]; current: ReactNode }) {
  return (
    <nav aria-label="Breadcrumb" className="breadcrumb">
      <ol>
        {trail.map((crumb, index) => (
          <li key={index}>{crumb.to ? <Link to={crumb.to}>{crumb.label}</Link> : crumb.label}</li>
        ))}
        <li aria-current="page">{current}</li>
      </ol>
    </nav>
  );
}
