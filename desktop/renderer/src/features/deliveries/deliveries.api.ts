import { call, trpc } from '../../api/trpc';
import type { DELIVERY_STATUSES, NOTIFY_CHANNELS } from '../../../../../shared/src/notify.schema';
import type { RouterOutputs } from '../../api/types';

export type DeliveryRow = RouterOutputs['notifications']['deliveries'][number];
export interface DeliveryFilter {
  status?: (typeof DELIVERY_STATUSES)[number];
  channel?: (typeof NOTIFY_CHANNELS)[number];
  limit: number;
}

export const deliveriesApi = {
  list: (filter: DeliveryFilter) => call(() => trpc.notifications.deliveries.query(filter)),
  retry: (id: string) => call(() => trpc.notifications.retry.mutate({ id })),
};

/** A one-line description of what a delivery carries. */
export function describeDelivery(d: DeliveryRow): string {
  const c = d.content as { kind: string; event?: { type?: string; hostname?: string; title?: string }; problem?: { title?: string; hostname?: string }; action?: string; day?: string; username?: string; requested_by?: string; approval?: { summary?: string } };
  switch (c.kind) {
    case 'event':
      return `${c.event?.hostname ?? ''} · ${c.event?.type ?? ''} · ${c.event?.title ?? ''}`;
    case 'problem':
      return `${c.action} · ${c.problem?.hostname ?? ''} · ${c.problem?.title ?? ''}`;
    case 'report':
      return `report ${c.day ?? ''}`;
    case 'login_locked':
      return `login locked: ${c.username ?? ''}`;
    case 'test':
      return `test (${c.requested_by ?? ''})`;
    case 'approval':
      return `approval needed: ${c.approval?.summary ?? ''}`;
    default:
      return c.kind;
  }
}
