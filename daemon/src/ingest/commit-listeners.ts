import type { Logger } from 'pino';
import type { Bus } from '../bus.js';
import type { Clock } from '../clock.js';
import { CorrelationService, type CorrelationSettingsSource, type LivenessSink } from '../correlation/index.js';
import { eventNotificationListener, type EventNotifyPlan } from '../notify/index.js';
import type { Store } from '../store/index.js';
import { ListenerCommitter } from './batch-committer.js';

/**
 * A committer running the commit listeners of ingest, in order: correlation (severity overrides,
 * rollups, liveness, inventory, gateway flaps, problems), then event notifications. One definition
 * for both places they run: the main thread (MongoDB, :memory:) and the ingest thread (ingest.worker.ts).
 */
export function createListenerCommitter(deps: {
  store: Store;
  bus: Bus;
  clock: Clock;
  logger: Logger;
  correlationSettings: CorrelationSettingsSource;
  liveness: LivenessSink;
  notify: { plan: () => EventNotifyPlan | null; onRecorded: (rows: number) => void; onLost: (rows: number) => void };
}): ListenerCommitter {
  const { store, bus, clock, logger } = deps;
  const correlation = new CorrelationService(store, bus, clock, logger.child({ scope: 'correlation' }), deps.correlationSettings, deps.liveness);
  const notifications = eventNotificationListener({ outbox: store.outbox, clock, logger: logger.child({ scope: 'notify' }), ...deps.notify });
  return new ListenerCommitter(store, [(committed) => correlation.onCommitted(committed), notifications], logger.child({ scope: 'ingest' }));
}
