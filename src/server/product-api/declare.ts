import type { SiteZones } from '../db/site-zones.ts';
import type { DeviceCommandsRecorder } from '../ledger/device-commands-recorder.ts';
import type { Ledger } from '../ledger/ledger.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import type { Sessions } from '../session/sessions.ts';
import type { SiteDirectory } from '../upstream/site-directory.ts';
import type { VerdictStore } from '../telemetry/verdict-store.ts';
import type { CommandVerification } from '../telemetry/command-verification.ts';
import type { UpstreamApi } from '../upstream/upstream-api.ts';
import type { WritePath } from './write-path.ts';
import type { Notifications } from '../notifications/notifications.ts';

// How routes are declared serves every route of the BFF (`http/route-declarations.ts`), and
// the session hooks every route that needs one (`session/session-hooks.ts`).
export {
  COMMON_PROBLEMS,
  declareCommonAnswers,
  declaredRoutes as productRoutes,
  precompiledSerializerCompiler,
  problemResponse,
  productValidatorCompiler,
} from '../http/route-declarations.ts';
export { requireSession, sessionOf } from '../session/session-hooks.ts';
export { tokenUse } from '../http/token-use.ts';

/** What the product routes need. */
export interface ProductApiDeps {
  sessions: Sessions;
  upstream: UpstreamApi;
  ledger: Ledger;
  /** Every change through its devices' budget, queued when it cannot go now (decision 007). */
  writePath: WritePath;
  /** Tells the person who made a queued change when another withdrew it. */
  notifications: Notifications;
  sites: SiteDirectory;
  zones: SiteZones;
  now: () => number;
  /** The read model: versions and what changed since one (the stale view refusal reads it). */
  deviceCommands: DeviceCommandsRecorder;
  /** The read model, which answers every read of device commands (docs/architecture.md). */
  readModel: ReadModel;
  /** The verdicts kept beside the ledger (docs/verification.md). */
  verdicts: VerdictStore;
  /** Running windows an operator watches, read and judged so far (docs/verification.md). */
  runningWindows: Pick<CommandVerification, 'watch' | 'runningOf'>;
}
