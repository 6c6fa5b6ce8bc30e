import { Link, useLocation, useNavigate } from 'react-router';
import { z } from 'zod';
import { MAX_BATCH_DEVICES } from '#domain/batch.ts';
import { DeviceCommandSchema } from '#domain/command.ts';
import { DeviceIdSchema } from '#domain/ids.ts';
import { BatchComposer } from '../../features/batch/components/batch-composer.tsx';
import { usePermission } from './use-permission.ts';
import { WithBoundSites } from './with-bound-sites.tsx';

/** What a batch page leaves in the history entry it opens: a resend to its failed devices. */
const ResendSchema = z.object({
  resend: z.object({
    from: z.string().max(200),
    deviceIds: z.array(DeviceIdSchema).min(1).max(MAX_BATCH_DEVICES),
    command: DeviceCommandSchema,
  }),
});

/** `/batches/new`: the batch composer; from a batch page's resend it starts with its failed devices and command. */
export function BatchNewRoute() {
  const navigate = useNavigate();
  const dispatch = usePermission('dispatch');
  const resend = ResendSchema.safeParse(useLocation().state).data?.resend;
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
              resend={resend}
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
