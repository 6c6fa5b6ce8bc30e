import { useEffect, useRef, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { QueryView } from '../../components/query-view.tsx';
import { operatorTimeZone } from '../../lib/time.ts';
import { useWebhookEndpoints } from '../../features/webhooks/api/webhook-endpoints.ts';
import { EndpointList } from '../../features/webhooks/components/endpoint-list.tsx';
import { EndpointMaker } from '../../features/webhooks/components/endpoint-maker.tsx';
import { EndpointPanel } from '../../features/webhooks/components/endpoint-panel.tsx';
import { usePermission } from './use-permission.ts';

/**
 * `/webhooks` and `/webhooks/:endpointId`: the account's outgoing webhooks (docs/automation.md,
 * Webhooks), for its administrator as the Tokens page is: the endpoints, adding one, and the open
 * endpoint's settings and delivery log below the list.
 */
export function WebhooksRoute() {
  const { allowed } = usePermission('administer');
  return (
    <>
      <title>Webhooks · powerdeck</title>
      <h1>Webhooks</h1>
      {allowed ? (
        <WebhooksPage />
      ) : (
        <p className="notice">Only an administrator adds and changes webhooks.</p>
      )}
    </>
  );
}

function WebhooksPage() {
  const { endpointId } = useParams();
  const navigate = useNavigate();
  const [timeZone] = useState(operatorTimeZone);
  const [nowMs] = useState(() => Date.now());
  const listHeading = useRef<HTMLHeadingElement>(null);
  // After a deletion the list is what remains: focus goes to its heading, not to <body>.
  const focusList = useRef(false);
  useEffect(() => {
    if (!focusList.current || endpointId !== undefined) return;
    focusList.current = false;
    listHeading.current?.focus();
  }, [endpointId]);
  return (
    <>
      <p className="lead">
        A webhook tells another system what powerdeck learns, as it learns it: each event is sent to
        the endpoint's address, signed with its secret (Standard Webhooks), and retried for about
        three days until it is taken.
      </p>
      <section className="stack" aria-labelledby="webhook-list">
        <h2 id="webhook-list" ref={listHeading} tabIndex={-1}>
          Endpoints
        </h2>
        <QueryView
          query={useWebhookEndpoints()}
          loading="Loading the endpoints…"
          failed="Could not read the endpoints."
        >
          {({ endpoints }) => (
            <EndpointList
              endpoints={endpoints}
              timeZone={timeZone}
              nowMs={nowMs}
              openId={endpointId}
            />
          )}
        </QueryView>
      </section>
      {endpointId ? (
        <EndpointPanel
          key={endpointId}
          endpointId={endpointId}
          timeZone={timeZone}
          onDeleted={() => {
            focusList.current = true;
            void navigate('/webhooks');
          }}
        />
      ) : (
        <EndpointMaker onKept={(id) => void navigate(`/webhooks/${id}`)} />
      )}
    </>
  );
}
