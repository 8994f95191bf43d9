import { agentValue, type Event } from '../../../shared/src/index.js';
import { GATEWAY_DETAIL_KEYS, RDG_CLOSED, RDG_OPENED } from '../store/index.js';

/** The gateway types and fields are the store's: it keeps their lookups cheap (store/detail-lookups.ts). */
export { GATEWAY_DETAIL_KEYS, RDG_CLOSED, RDG_OPENED };
/** The synthetic type of flap problems (the pair, not either event). */
export const RDG_FLAP_TYPE = 'rdg.connection.flap';
/** A 303 within this range after its 302 is a flap (agent-contract.md). */
export const FLAP_MIN_MS = 1000;
export const FLAP_MAX_MS = 10_000;
/** At most one flap problem per pair key in this window. */
export const FLAP_WINDOW_MS = 30_000;

export type GatewayRole = 'opened' | 'closed';

/** Whether an event is one side of an RD Gateway pair. */
export function gatewayRole(type: string): GatewayRole | null {
  if (type === RDG_OPENED) return 'opened';
  return (RDG_CLOSED as readonly string[]).includes(type) ? 'closed' : null;
}

function detail(details: Readonly<Record<string, unknown>> | undefined, key: string): string {
  return agentValue(details?.[key]) ?? '';
}

/** One side of a gateway pair, as the flap rule sees it. */
export interface GatewaySide {
  event_id: string;
  host_id: string;
  occurred_ms: number;
  user: string;
  internal_ip: string;
  external_ip: string;
}

export function gatewaySide(hostId: string, eventId: string, details: Event['details'], occurredMs: number): GatewaySide {
  return {
    event_id: eventId,
    host_id: hostId,
    occurred_ms: occurredMs,
    user: detail(details, 'user').toLowerCase(),
    internal_ip: detail(details, 'internal_ip'),
    external_ip: detail(details, 'external_ip'),
  };
}

/**
 * True when a 302 and a 303 form a flap: same gateway host, user and internal IP (and external IP
 * where both carry one), the 303 1–10 s after the 302. Arrival order does not matter.
 */
export function isFlap(opened: GatewaySide, closed: GatewaySide): boolean {
  if (opened.host_id !== closed.host_id || opened.user !== closed.user || opened.internal_ip !== closed.internal_ip) return false;
  if (opened.external_ip && closed.external_ip && opened.external_ip !== closed.external_ip) return false;
  const gap = closed.occurred_ms - opened.occurred_ms;
  return gap >= FLAP_MIN_MS && gap <= FLAP_MAX_MS;
}

/** The flap problem's key discriminator: user and internal IP. */
export function flapKeyParts(side: GatewaySide): string[] {
  return [side.user, side.internal_ip];
}
