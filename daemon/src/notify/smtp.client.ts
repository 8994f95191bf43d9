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
 * Sends one message (HTML with a plain-text alternative) to every recipient. A 5xx reply from the
 * server is permanent; connection problems and 4xx replies are retried. The URL's credentials
 * never appear in the error message.
 */
export async function sendMail(cfg: SmtpConfig, mail: MailContent): Promise<void> {
  const transport = nodemailer.createTransport({
    url: cfg.url,
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
