import { Link, useNavigate } from 'react-router';
import { BatchComposer } from '../../features/batch/components/batch-composer.tsx';
import { usePermission } from './use-permission.ts';
import { WithBoundSites } from './with-bound-sites.tsx';

/**
 * `/batches/new`: the batch composer over the devices of every bound site; an accepted batch
 * opens its page, which reads it from the ledger.
 */
export function BatchNewRoute() {
  const navigate = useNavigate();
  const dispatch = usePermission('dispatch');
  return (
    <>
      <title>New batch · powerdeck</title>
      <h1>New batch</h1>
      <p className="lead">
        One command for up to 50 devices. Each device gets its own device command; see them on the
        batch page after submitting. <Link to="/batches">All batches</Link>
      </p>
      <WithBoundSites>
        {(sites) =>
          dispatch.allowed ? (
            <BatchComposer
              sites={sites}
              onSubmitted={(batchCommandId) =>
                void navigate(
                  batchCommandId ? `/batches/${encodeURIComponent(batchCommandId)}` : '/batches',
                  { state: { justSubmitted: true } },
                )
              }
            />
          ) : (
            <p className="notice">{dispatch.why}</p>
          )
        }
      </WithBoundSites>
    </>
  );
}
