import { Link } from 'react-router';
import type { WebhookEndpoint } from '#domain/webhooks.ts';
import { formatClockWithUtc } from '#client/lib/time.ts';
import { EVENT_TYPE_WORDS, endpointSitesWords, endpointStateWords } from '../lib/webhook-words.ts';
import './webhooks.css';

/** Where the guide for receivers is: the repository's automation guide, its Webhooks section. */
export const WEBHOOKS_GUIDE = 'docs/automation.md, Webhooks';

/**
 * The account's endpoints (never a secret): address, events, sites, whether it is on (or why it
 * was turned off) and its latest attempt, times on the operator's clock with UTC. Each address
 * opens the endpoint's page.
 */
export function EndpointList({
  endpoints,
  timeZone,
  nowMs,
  openId,
}: {
  endpoints: readonly WebhookEndpoint[];
  timeZone: string;
  nowMs: number;
  /** The endpoint whose page is open, marked as the current one. */
  openId?: string | undefined;
}) {
  if (endpoints.length === 0)
    return (
      <div className="empty-state">
        <p>
          <strong>No endpoints yet.</strong> A webhook tells another system what powerdeck learns as
          it happens: a device command's status, a queued change sent or refused, a batch device
          that failed, a fleet job's end. Add the address of a ticketing tool, a scheduler or a
          trading desk, and it is told without asking.
        </p>
        <p>
          How a receiver checks each delivery's signature: <cite>{WEBHOOKS_GUIDE}</cite>.
        </p>
      </div>
    );
  return (
    <div className="table-scroll">
      <table className="webhook-endpoints">
        <thead>
          <tr>
            <th scope="col">Address</th>
            <th scope="col">Events</th>
            <th scope="col">Sites</th>
            <th scope="col">State</th>
            <th scope="col">Latest attempt</th>
          </tr>
        </thead>
        <tbody>
          {endpoints.map((endpoint) => (
            <tr key={endpoint.id} aria-current={endpoint.id === openId ? 'true' : undefined}>
              <th scope="row">
                <Link to={`/webhooks/${endpoint.id}`} className="webhook-url">
                  {endpoint.url}
                </Link>
                {endpoint.description ? (
                  <span className="status-reason">{endpoint.description}</span>
                ) : null}
              </th>
              <td>
                <ul className="webhook-event-list">
                  {endpoint.eventTypes.map((type) => (
                    <li key={type}>{EVENT_TYPE_WORDS[type]}</li>
                  ))}
                </ul>
              </td>
              <td>{endpointSitesWords(endpoint.siteIds)}</td>
              <td className={endpoint.enabled ? undefined : 'webhook-off'}>
                {endpointStateWords(endpoint)}
              </td>
              <td>
                {endpoint.lastAttempt ? (
                  <>
                    {formatClockWithUtc(endpoint.lastAttempt.at, timeZone, nowMs)}:{' '}
                    {endpoint.lastAttempt.succeeded ? 'delivered' : 'failed'}
                    {endpoint.lastAttempt.statusCode !== undefined
                      ? ` (${endpoint.lastAttempt.statusCode})`
                      : ''}
                  </>
                ) : (
                  'none yet'
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
