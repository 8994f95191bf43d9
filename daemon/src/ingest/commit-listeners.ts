import type { Logger } from 'pino';
import type { Bus } from '../bus.js';
import type { Clock } from '../clock.js';
import { CorrelationService, type CorrelationSettingsSource, type LivenessSink } from '../correlation/index.js';
import { eventNotificationListener, type EventNotifyPlan } from '../notify/notify.ingest.js';
import type { Store } from '../store/index.js';
import type { CommitListener } from './batch-committer.js';

/**
 * The commit listeners of ingest, in order: correlation (severity overrides, rollups, liveness,
 * inventory, gateway flaps, problems), then event notifications. One list for both places they
 * run: this thread (`ListenerCommitter`) and the ingest thread (ingest.worker.ts).
 */
export function createCommitListeners(deps: {
  store: Store;
  bus: Bus;
  clock: Clock;
  logger: Logger;
  correlationSettings: CorrelationSettingsSource;
  liveness: LivenessSink;
  notify: { plan: () => EventNotifyPlan | null; onRecorded: (rows: number) => void; onLost: (rows: number) => void };
}): CommitListener[] {
  const { store, bus, clock, logger } = deps;
  const correlation = new CorrelationService(store, bus, clock, logger.child({ scope: 'correlation' }), deps.correlationSettings, deps.liveness);
  const notifications = eventNotificationListener({ outbox: store.outbox, clock, logger: logger.child({ scope: 'notify' }), ...deps.notify });
  return [(committed) => correlation.onCommitted(committed), notifications];
}
