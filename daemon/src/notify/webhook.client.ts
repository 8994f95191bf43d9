import { createHmac } from 'node:crypto';
import { bodySnippet, DeliveryError, isRetryableStatus, networkFailure } from './delivery-error.js';

export interface WebhookConfig {
  url: string;
  secret: string | null;
  headers: Record<string, string>;
  timeoutMs: number;
}

/** Header carrying `sha256=<hex HMAC-SHA256 of the raw body>` when a secret is set. */
export const SIGNATURE_HEADER = 'X-SAC-Signature';

/** The signature value a receiver recomputes over the exact bytes it received. */
export function webhookSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/** POSTs a JSON body; any 2xx is delivered, 4xx other than 408/429 is permanent. */
export async function postWebhook(cfg: WebhookConfig, body: unknown): Promise<void> {
  const text = JSON.stringify(body);
  const headers: Record<string, string> = { ...cfg.headers, 'Content-Type': 'application/json', 'User-Agent': 'SAC-webhook/1' };
  if (cfg.secret) headers[SIGNATURE_HEADER] = webhookSignature(cfg.secret, text);
  let res: Response;
  try {
    res = await fetch(cfg.url, { method: 'POST', headers, body: text, signal: AbortSignal.timeout(cfg.timeoutMs), redirect: 'manual' });
  } catch (err) {
    throw networkFailure(err, 'webhook unreachable');
  }
  if (res.status >= 200 && res.status < 300) {
    await res.arrayBuffer();
    return;
  }
  const snippet = await bodySnippet(res);
  throw new DeliveryError(`webhook answered ${res.status}${snippet ? `: ${snippet}` : ''}`, {
    status: res.status,
    permanent: !isRetryableStatus(res.status),
  });
}
