import { isIP } from 'node:net';
import nodemailer from 'nodemailer';
import { DeliveryError } from './delivery-error.js';

export interface SmtpConfig {
  /** nodemailer connection URL: smtp://user:pass@host:587 (STARTTLS) or smtps://…:465 (TLS). */
  url: string;
  from: string;
  to: string[];
  timeoutMs: number;
}

export interface MailContent {
  subject: string;
  text: string;
  html: string;
}

/**
 * Whether an `smtp://` URL must upgrade with STARTTLS before AUTH and DATA. Always, so a server or
 * a man in the middle that drops STARTTLS cannot get the password and mail in clear text, except
 * for a literal loopback address (a local relay): that traffic never leaves the machine. The name
 * `localhost` is not exempt, since resolution could point it elsewhere. `smtps://` is TLS anyway.
 */
export function smtpRequiresStartTls(url: string): boolean {
  const u = new URL(url);
  if (u.protocol !== 'smtp:') return false;
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const loopback = (isIP(host) === 4 && host.startsWith('127.')) || (isIP(host) === 6 && host === '::1');
  return !loopback;
}

/**
 * Sends one message (HTML with a plain-text alternative) to every recipient. A 5xx reply from the
 * server is permanent; connection problems and 4xx replies are retried. The URL's credentials
 * never appear in the error message.
 */
export async function sendMail(cfg: SmtpConfig, mail: MailContent): Promise<void> {
  const transport = nodemailer.createTransport({
    url: cfg.url,
    requireTLS: smtpRequiresStartTls(cfg.url),
    connectionTimeout: cfg.timeoutMs,
    greetingTimeout: cfg.timeoutMs,
    socketTimeout: cfg.timeoutMs,
  });
  try {
    await transport.sendMail({ from: cfg.from, to: cfg.to, subject: mail.subject, text: mail.text, html: mail.html });
  } catch (err) {
    const e = err as { responseCode?: number; code?: string; response?: string; message?: string };
    const code = e.responseCode ?? null;
    const what = code ? `SMTP server answered ${code}: ${(e.response ?? '').slice(0, 200)}` : `SMTP failed: ${e.code ?? e.message ?? 'error'}`;
    throw new DeliveryError(what, { status: code, permanent: code !== null && code >= 500, cause: err });
  } finally {
    transport.close();
  }
}
