import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { isIanaTimeZone, LANGUAGES, NOTIFY_CHANNELS, PasswordSchema, SEVERITIES, UsernameSchema } from '../../shared/src/index.js';
import { parseTrustedProxies } from './trusted-proxies.js';

/** Names MongoDB accepts for a database: no path or namespace separators, at most 63 characters. */
const MONGO_DB_NAME = /^[^/\\. "$*<>:|?]{1,63}$/;

/**
 * The daemon's environment, one zod schema. Each key's description is its documentation
 * (README's configuration table mirrors it). Secret keys may instead be given as `<KEY>_FILE`,
 * a path whose contents (without the trailing newline) are the value.
 */
const commaList = z
  .string()
  .optional()
  .transform((v) => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean));

const EnvSchema = z.object({
  SAC_HOST: z.string().min(1).default('127.0.0.1').describe('Address the HTTP server listens on.'),
  SAC_PORT: z.coerce.number().int().min(0).max(65535).default(8080).describe('TCP port (0 picks a free one).'),
  SAC_DATA_DIR: z
    .string()
    .min(1)
    .default('./data')
    .describe('Directory for the embedded database, the bootstrap API key file and other local state.'),
  SAC_BASE_PATH: z
    .string()
    .regex(/^(\/[A-Za-z0-9._~-]+)*$/, 'must be empty or a path such as /sac without a trailing slash')
    .default('')
    .describe('Path prefix under which every route is also served (agents may be configured with https://host/sac).'),
  SAC_MONGODB_URI: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// or mongodb+srv:// connection string')
    .optional()
    .describe('Set: use MongoDB as the store. Unset: embedded SQLite file in the data dir. Secret.'),
  SAC_MONGODB_DB: z
    .string()
    .regex(MONGO_DB_NAME, 'must be 1–63 characters without /\\. "$*<>:|? or spaces')
    .optional()
    .describe('MongoDB database name. Unset: the database in the path of SAC_MONGODB_URI, else `sac`.'),
  SAC_BOOTSTRAP_API_KEY: z
    .string()
    .regex(/^[A-Za-z0-9_-]{24,200}$/, 'must be 24–200 characters of A–Z, a–z, 0–9, _ or -')
    .optional()
    .describe('Agent API key to register at start-up instead of generating one. Secret.'),
  SAC_LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('pino log level.'),
  SAC_INGEST_BATCH_MAX: z.coerce
    .number()
    .int()
    .min(1)
    .max(5000)
    .default(500)
    .describe('Most events written in one group commit.'),
  SAC_WEB_DIR: z
    .string()
    .min(1)
    .optional()
    .describe('Folder of the console web build served at / (default: desktop/renderer/dist, made by npm run build:web).'),
  SAC_INGEST_QUEUE_LIMIT: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(20_000)
    .describe('Events waiting for a commit before ingest answers 503 with Retry-After.'),
  SAC_TELEGRAM_BOT_TOKEN: z.string().min(1).optional().describe('Telegram bot token for the chat messenger channel (a stored setting overrides). Secret.'),
  SAC_TELEGRAM_CHAT_IDS: commaList
    .pipe(z.array(z.string().regex(/^-?\d{1,20}$|^@[A-Za-z0-9_]{5,64}$/, 'each must be a numeric chat id or @channel')))
    .describe('Telegram chat ids that receive notifications, comma-separated.'),
  SAC_TELEGRAM_API_BASE: z
    .url({ protocol: /^https?$/ })
    .default('https://api.telegram.org')
    .describe('Base URL of the Telegram Bot API (a self-hosted Bot API server, or a test peer).'),
  SAC_PUBLIC_URL: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .optional()
    .describe(
      'The URL under which people and hosts reach SAC, e.g. https://sac.example.org/sac: "Open in console" buttons in Telegram (when https, button presses arrive by webhook instead of long polling) and agent bundle links (default: the address a request came to).',
    ),
  SAC_TELEGRAM_POLL_TIMEOUT_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(50)
    .default(25)
    .describe('Long-polling timeout of getUpdates (Telegram button presses and /link messages), seconds.'),
  SAC_ESCALATION_CHECK_SECONDS: z.coerce
    .number()
    .positive()
    .max(3600)
    .default(60)
    .describe('How often the escalation job looks for unacknowledged problems due for re-notification (one daemon at a time).'),
  SAC_BANS_EXPIRY_CHECK_SECONDS: z.coerce
    .number()
    .positive()
    .max(3600)
    .default(30)
    .describe('How often the job marks fleet SSH bans whose time is up as expired (one daemon at a time).'),
  SAC_WEBHOOK_URL: z.url({ protocol: /^https?$/ }).optional().describe('URL the webhook channel POSTs JSON to.'),
  SAC_WEBHOOK_SECRET: z.string().min(1).optional().describe('Secret for the X-SAC-Signature HMAC-SHA256 of each webhook body. Secret.'),
  SAC_SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
    .optional()
    .describe('nodemailer connection URL, e.g. smtp://user:pass@mail.example:587 (STARTTLS) or smtps://…:465 (TLS). Secret.'),
  SAC_SMTP_FROM: z.string().min(3).optional().describe('Sender address of notification e-mail.'),
  SAC_SMTP_TO: commaList.pipe(z.array(z.email('each must be an e-mail address'))).describe('Recipients of notification e-mail, comma-separated.'),
  SAC_NOTIFY_MIN_SEVERITY: z.enum(SEVERITIES).default('high').describe('Lowest severity notified (policy min_severity).'),
  SAC_NOTIFY_CHANNELS: z
    .string()
    .default('telegram,webhook,smtp,push')
    .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean))
    .pipe(z.array(z.enum(NOTIFY_CHANNELS)))
    .describe('Enabled notification channels, comma-separated (telegram, webhook, smtp, push); a channel also needs its settings.'),
  SAC_NOTIFY_LANGUAGE: z.enum(LANGUAGES).default('en').describe('Language of notifications and reports.'),
  SAC_NOTIFY_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(8).describe('Delivery attempts per notification before it is marked failed.'),
  SAC_NOTIFY_RETRY_BASE_MS: z.coerce
    .number()
    .int()
    .min(1)
    .default(5000)
    .describe('Delay before the first retry in ms; each further retry waits twice as long.'),
  SAC_NOTIFY_RETRY_MAX_MS: z.coerce.number().int().min(1).default(900_000).describe('Longest wait between two delivery attempts in ms.'),
  SAC_NOTIFY_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1000).describe('How often the dispatcher looks for due notifications, in ms.'),
  SAC_NOTIFY_LOG_RETENTION_DAYS: z.coerce
    .number()
    .min(0.001)
    .max(3650)
    .default(30)
    .describe('Days sent and failed notifications stay in the delivery log.'),
  SAC_NOTIFY_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000).describe('Timeout of one delivery attempt in ms.'),
  SAC_PUSH_SUBJECT: z
    .string()
    .regex(/^(mailto:|https:\/\/)/, 'must start with mailto: or https://')
    .default('mailto:sac@localhost')
    .describe('Contact put into the VAPID token of web push messages.'),
  SAC_REPORT_TIME: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be HH:MM (24 h)')
    .default('09:00')
    .describe('Local time of the daily SSH/RDP report.'),
  SAC_REPORT_TIMEZONE: z
    .string()
    .refine(isIanaTimeZone, 'must be an IANA time zone such as Europe/Moscow')
    .default(Intl.DateTimeFormat().resolvedOptions().timeZone)
    .describe('Time zone of the daily report time (default: the machine time zone).'),
  SAC_REPORT_CHECK_SECONDS: z.coerce
    .number()
    .min(0.05)
    .max(3600)
    .default(60)
    .describe('How often the daily report job checks whether the report is due, in seconds.'),
  SAC_BACKUP_CHECK_SECONDS: z.coerce
    .number()
    .min(0.05)
    .max(3600)
    .default(60)
    .describe('How often the scheduled backup job checks whether a backup of the embedded store is due, in seconds.'),
  SAC_CORRELATION_WINDOW_MINUTES: z.coerce
    .number()
    .positive()
    .max(10_080)
    .default(60)
    .describe('Correlation window in minutes: events of one host, type and rule this close in occurred time join one problem (a stored setting overrides).'),
  SAC_HOST_STALE_MINUTES: z.coerce
    .number()
    .positive()
    .max(43_200)
    .default(300)
    .describe('Minutes without a heartbeat or daily report after which a host is stale; decimals allowed (a stored setting, also per product, overrides).'),
  SAC_SILENCE_SCAN_SECONDS: z.coerce
    .number()
    .min(0.05)
    .max(86_400)
    .default(60)
    .describe('How often the host silence scan runs, in seconds (decimals allowed).'),
  SAC_AGENT_VERSION_CHECK_SECONDS: z.coerce
    .number()
    .min(0.05)
    .max(86_400)
    .default(60)
    .describe('How often the leader looks for git repositories due a read (each is read every refresh_minutes of the git_repos settings).'),
  SAC_APPROVAL_EXPIRY_CHECK_SECONDS: z.coerce
    .number()
    .min(0.05)
    .max(3600)
    .default(30)
    .describe('How often the leader marks approval requests past their expiry as expired, in seconds (decimals allowed).'),
  SAC_SILENCE_REOPEN_COOLDOWN_MINUTES: z.coerce
    .number()
    .min(0)
    .max(525_600)
    .default(720)
    .describe('After an operator resolves a host_silence problem, minutes during which it is not reopened (decimals allowed).'),
  SAC_WINDOWS_ADMIN_USERNAME: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe('Windows administrator for WinRM remote actions, DOMAIN\\user or user@domain (a stored windows_admin setting overrides).'),
  SAC_WINDOWS_ADMIN_PASSWORD: z.string().min(1).optional().describe('Password of that administrator (a stored setting overrides). Secret.'),
  SAC_ACTIONS_RATE_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(30)
    .describe('Remote actions (session lists, logoffs, access tests) one console user may start per minute; more get 429.'),
  SAC_ACTIONS_TIMEOUT_SECONDS: z.coerce.number().min(1).max(600).default(30).describe('Budget of one WinRM command or SSH access test, in seconds.'),
  SAC_COMMAND_REDELIVER_SECONDS: z.coerce
    .number()
    .min(1)
    .max(86_400)
    .default(180)
    .describe('An agent command handed out but without result is handed out again after this many seconds (agents poll every 60 s).'),
  SAC_COMMAND_EXPIRE_MINUTES: z.coerce
    .number()
    .min(0.05)
    .max(10_080)
    .default(15)
    .describe('An agent command without result this many minutes after it was queued becomes expired.'),
  SAC_ADMIN_USERNAME: UsernameSchema.default('admin').describe('Username of the admin created on first start (when there is no user yet).'),
  SAC_ADMIN_PASSWORD: PasswordSchema.optional().describe(
    'Password of the first-start admin. Unset: one is generated, printed once and written to <data dir>/initial-admin-password (mode 0600). Secret.',
  ),
  SAC_JWT_SECRET: z
    .string()
    .min(32, 'must be at least 32 characters')
    .optional()
    .describe('Secret signing console session tokens (HS256). Unset: generated once and kept encrypted in the store. Secret.'),
  SAC_SESSION_TTL_MINUTES: z.coerce
    .number()
    .int()
    .min(5)
    .max(43_200)
    .default(720)
    .describe('Lifetime of a console session token in minutes; the console renews it before it ends.'),
  SAC_MASTER_KEY: z
    .string()
    .min(32, 'must be at least 32 characters')
    .optional()
    .describe(
      'Key (any text of 32+ characters) encrypting stored secrets (AES-256-GCM). Unset: generated into <data dir>/master-key (mode 0600). Daemons sharing one MongoDB need the same key. Secret.',
    ),
  SAC_LOGIN_MAX_FAILURES: z.coerce.number().int().min(1).max(100).default(3).describe('Failed sign-ins for one username within the window that lock it.'),
  SAC_LOGIN_WINDOW_MINUTES: z.coerce.number().int().min(1).max(1440).default(15).describe('Window in minutes over which failed sign-ins are counted.'),
  SAC_LOGIN_LOCK_MINUTES: z.coerce.number().int().min(1).max(1440).default(15).describe('How long a locked username gets 429, in minutes.'),
  SAC_LOGIN_ADDRESS_MAX_FAILURES: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(30)
    .describe('Failed sign-ins from one source address within the window before that address gets 429.'),
  SAC_LOGIN_QUEUE_LIMIT: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(64)
    .describe('Sign-ins waiting for a password check before further ones get 503 with Retry-After.'),
  SAC_SESSION_ABSOLUTE_HOURS: z.coerce
    .number()
    .min(0.001)
    .max(8760)
    .default(12)
    .describe('Absolute lifetime of a console session in hours from sign-in; renewals never extend it (decimals allowed).'),
  SAC_ALLOWED_HOSTS: z
    .string()
    .optional()
    .transform((v) => (v === undefined ? null : v.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean)))
    .pipe(z.array(z.string().regex(/^(\*|(\*\.)?[a-z0-9_-]+(\.[a-z0-9_-]+)*|[0-9a-f:.]+)$/, 'each must be a host name, *.domain or *')).nullable())
    .describe(
      'Host names the daemon answers to, comma-separated (`*.example.org` for sub-domains, `*` for any); other Host headers get 421. IP literals always pass. Unset: loopback names only when listening on loopback, any otherwise.',
    ),
  SAC_TRUSTED_PROXIES: z
    .string()
    .default('')
    .superRefine((v, ctx) => {
      try {
        parseTrustedProxies(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: `${(err as Error).message}; expected IP addresses and CIDR blocks, comma-separated` });
      }
    })
    .describe(
      'Reverse proxies whose `X-Forwarded-For` is believed (IPs and CIDR blocks, comma-separated). For a request from one of them the client is the rightmost forwarded address that is not a trusted proxy. Empty: the header is ignored.',
    ),
  SAC_METRICS_ACCESS: z
    .enum(['admin', 'public'])
    .default('admin')
    .describe('Who may read /metrics: `admin` (an admin session token, or SAC_METRICS_TOKEN) or `public` (anyone who reaches the port).'),
  SAC_METRICS_TOKEN: z
    .string()
    .min(24, 'must be at least 24 characters')
    .optional()
    .describe('Bearer token a Prometheus scraper sends to read /metrics. Secret.'),
  SAC_PUSH_HOSTS: z
    .string()
    .default('fcm.googleapis.com,*.push.services.mozilla.com,*.notify.windows.com,web.push.apple.com,*.push.apple.com')
    .transform((v) => v.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean))
    .pipe(z.array(z.string().regex(/^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*$/, 'each must be a host name or *.domain')))
    .describe('Push service hosts a push subscription endpoint may point at (https only), comma-separated; `*.domain` matches sub-domains.'),
  SAC_PUSH_ALLOW_LOOPBACK: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true')
    .describe('Also accept http(s) push endpoints on 127.0.0.1 (a local test push service). Never in production.'),
  SAC_PUSH_MAX_PER_USER: z.coerce.number().int().min(1).max(100).default(5).describe('Push subscriptions one user may register.'),
  SAC_STREAM_MAX_CLIENTS: z.coerce.number().int().min(1).max(100_000).default(2000).describe('Open live streams (SSE) on this daemon before new ones get 503.'),
  SAC_STREAM_MAX_PER_USER: z.coerce.number().int().min(1).max(100_000).default(10).describe('Open live streams of one console user before new ones get 429.'),
  SAC_AUDIT_RETENTION_DAYS: z.coerce.number().min(1).max(36_500).default(365).describe('Audit log entries older than this many days are deleted.'),
  SAC_EVENT_RETENTION_DAYS: z.coerce
    .number()
    .min(1)
    .max(36_500)
    .optional()
    .describe('Set: events older than this many days (by occurred time) are deleted; dashboard counters are kept. Unset: events are kept.'),
  SAC_RETENTION_INTERVAL_MINUTES: z.coerce.number().min(0.01).max(1440).default(60).describe('How often the retention job runs (one daemon at a time, under a store lease).'),
});

/** Keys whose values are secrets: accepted as `<KEY>_FILE` too, never logged. */
export const SECRET_KEYS = ['SAC_MONGODB_URI', 'SAC_BOOTSTRAP_API_KEY', 'SAC_TELEGRAM_BOT_TOKEN', 'SAC_WEBHOOK_SECRET', 'SAC_SMTP_URL', 'SAC_ADMIN_PASSWORD', 'SAC_JWT_SECRET', 'SAC_MASTER_KEY', 'SAC_WINDOWS_ADMIN_PASSWORD', 'SAC_METRICS_TOKEN'] as const;

/**
 * The database named in a MongoDB connection string's path (`mongodb://h1,h2/sac_prod?x=y`), or
 * undefined when it names none. User info may contain `@` and `/` only percent-encoded, so the
 * hosts end at the first `/` after the last `@`.
 */
export function mongoDbFromUri(uri: string): string | undefined {
  const rest = uri.replace(/^mongodb(\+srv)?:\/\//, '').split('?', 1)[0];
  const hostsAndPath = rest.slice(rest.lastIndexOf('@') + 1);
  const slash = hostsAndPath.indexOf('/');
  if (slash < 0) return undefined;
  const name = hostsAndPath.slice(slash + 1);
  if (name === '') return undefined;
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

const DAY_MS = 24 * 3600 * 1000;

/**
 * The configuration the daemon runs with, derived from the parsed environment: the one source of
 * both the values and the `Config` type.
 */
const ConfigSchema = EnvSchema.transform((e, ctx) => {
  const publicUrl = e.SAC_PUBLIC_URL?.replace(/\/+$/, '');
  const uriDb = e.SAC_MONGODB_URI ? mongoDbFromUri(e.SAC_MONGODB_URI) : undefined;
  if (e.SAC_MONGODB_DB === undefined && uriDb !== undefined && !MONGO_DB_NAME.test(uriDb)) {
    ctx.addIssue({ code: 'custom', path: ['SAC_MONGODB_URI'], message: 'the database in its path must be 1–63 characters without /\\. "$*<>:|? or spaces' });
    return z.NEVER;
  }
  const dataDir = path.resolve(e.SAC_DATA_DIR);
  return {
    host: e.SAC_HOST,
    port: e.SAC_PORT,
    dataDir,
    basePath: e.SAC_BASE_PATH,
    logLevel: e.SAC_LOG_LEVEL,
    store: e.SAC_MONGODB_URI
      ? { kind: 'mongodb' as const, uri: e.SAC_MONGODB_URI, dbName: e.SAC_MONGODB_DB ?? uriDb ?? 'sac' }
      : { kind: 'sqlite' as const, file: path.join(dataDir, 'sac.sqlite') },
    bootstrapApiKey: e.SAC_BOOTSTRAP_API_KEY,
    ingest: { batchMax: e.SAC_INGEST_BATCH_MAX, queueLimit: e.SAC_INGEST_QUEUE_LIMIT },
    notify: {
      telegram: { botToken: e.SAC_TELEGRAM_BOT_TOKEN, chatIds: e.SAC_TELEGRAM_CHAT_IDS, apiBase: e.SAC_TELEGRAM_API_BASE },
      webhook: { url: e.SAC_WEBHOOK_URL, secret: e.SAC_WEBHOOK_SECRET },
      smtp: { url: e.SAC_SMTP_URL, from: e.SAC_SMTP_FROM, to: e.SAC_SMTP_TO },
      minSeverity: e.SAC_NOTIFY_MIN_SEVERITY,
      channels: e.SAC_NOTIFY_CHANNELS,
      language: e.SAC_NOTIFY_LANGUAGE,
      pushSubject: e.SAC_PUSH_SUBJECT,
      /** Public console URL for links in messages. */
      publicUrl,
      report: { time: e.SAC_REPORT_TIME, timezone: e.SAC_REPORT_TIMEZONE, checkMs: Math.round(e.SAC_REPORT_CHECK_SECONDS * 1000) },
      delivery: {
        maxAttempts: e.SAC_NOTIFY_MAX_ATTEMPTS,
        retryBaseMs: e.SAC_NOTIFY_RETRY_BASE_MS,
        retryMaxMs: e.SAC_NOTIFY_RETRY_MAX_MS,
        pollMs: e.SAC_NOTIFY_POLL_MS,
        timeoutMs: e.SAC_NOTIFY_TIMEOUT_MS,
        retentionMs: Math.round(e.SAC_NOTIFY_LOG_RETENTION_DAYS * 24 * 3600 * 1000),
      },
    },
    /** Defaults of the correlation and host-status settings (stored settings override them). */
    correlation: {
      windowMinutes: e.SAC_CORRELATION_WINDOW_MINUTES,
      staleMinutes: e.SAC_HOST_STALE_MINUTES,
      silenceScanMs: Math.round(e.SAC_SILENCE_SCAN_SECONDS * 1000),
      silenceCooldownMinutes: e.SAC_SILENCE_REOPEN_COOLDOWN_MINUTES,
    },
    /** `SAC_PUBLIC_URL` without a trailing slash. */
    publicUrl,
    updates: { versionCheckMs: Math.round(e.SAC_AGENT_VERSION_CHECK_SECONDS * 1000) },
    approvals: { expiryCheckMs: Math.round(e.SAC_APPROVAL_EXPIRY_CHECK_SECONDS * 1000) },
    auth: {
      adminUsername: e.SAC_ADMIN_USERNAME,
      adminPassword: e.SAC_ADMIN_PASSWORD,
      jwtSecret: e.SAC_JWT_SECRET,
      sessionTtlMs: e.SAC_SESSION_TTL_MINUTES * 60_000,
      maxFailures: e.SAC_LOGIN_MAX_FAILURES,
      windowMs: e.SAC_LOGIN_WINDOW_MINUTES * 60_000,
      lockMs: e.SAC_LOGIN_LOCK_MINUTES * 60_000,
      addressMaxFailures: e.SAC_LOGIN_ADDRESS_MAX_FAILURES,
      /** Sign-ins waiting for a password check before 503. */
      queueLimit: e.SAC_LOGIN_QUEUE_LIMIT,
      /** Absolute session lifetime from sign-in, not extended by renewals. */
      absoluteMs: Math.round(e.SAC_SESSION_ABSOLUTE_HOURS * 3_600_000),
    },
    /** `allowedHosts`: the Host allow-list; null = the default for the listen address. `trustedProxies`: SAC_TRUSTED_PROXIES as given (valid). */
    http: { allowedHosts: e.SAC_ALLOWED_HOSTS, trustedProxies: e.SAC_TRUSTED_PROXIES, metricsAccess: e.SAC_METRICS_ACCESS, metricsToken: e.SAC_METRICS_TOKEN },
    push: { hosts: e.SAC_PUSH_HOSTS, allowLoopback: e.SAC_PUSH_ALLOW_LOOPBACK, maxPerUser: e.SAC_PUSH_MAX_PER_USER },
    masterKey: e.SAC_MASTER_KEY,
    /** The Telegram bot's long polling for button presses and `/link` messages. */
    telegramBot: { pollTimeoutS: e.SAC_TELEGRAM_POLL_TIMEOUT_SECONDS },
    /** How often the escalation job looks for unacknowledged problems. */
    escalation: { checkMs: Math.round(e.SAC_ESCALATION_CHECK_SECONDS * 1000) },
    /** How often the job marks fleet SSH bans whose time is up as expired. */
    bans: { expiryCheckMs: Math.round(e.SAC_BANS_EXPIRY_CHECK_SECONDS * 1000) },
    /** Remote actions: WinRM administrator from the environment (stored settings override), limits and command timing. */
    actions: {
      windowsAdmin: { username: e.SAC_WINDOWS_ADMIN_USERNAME, password: e.SAC_WINDOWS_ADMIN_PASSWORD },
      perMinute: e.SAC_ACTIONS_RATE_PER_MINUTE,
      timeoutMs: Math.round(e.SAC_ACTIONS_TIMEOUT_SECONDS * 1000),
      redeliverAfterMs: Math.round(e.SAC_COMMAND_REDELIVER_SECONDS * 1000),
      expireAfterMs: Math.round(e.SAC_COMMAND_EXPIRE_MINUTES * 60_000),
    },
    /** How often the scheduled backup job looks whether a backup is due (the schedule itself is the `backup` setting). */
    backup: { checkMs: Math.round(e.SAC_BACKUP_CHECK_SECONDS * 1000) },
    /** Live stream (SSE) connection caps. */
    stream: { maxClients: e.SAC_STREAM_MAX_CLIENTS, maxPerUser: e.SAC_STREAM_MAX_PER_USER },
    /** What the retention job prunes and how often; `eventMs` null keeps events. */
    retention: {
      auditMs: Math.round(e.SAC_AUDIT_RETENTION_DAYS * DAY_MS),
      eventMs: e.SAC_EVENT_RETENTION_DAYS === undefined ? null : Math.round(e.SAC_EVENT_RETENTION_DAYS * DAY_MS),
      intervalMs: Math.round(e.SAC_RETENTION_INTERVAL_MINUTES * 60_000),
    },
    /** Console web build folder; undefined = the repository's desktop/renderer/dist. */
    webDir: e.SAC_WEB_DIR === undefined ? undefined : path.resolve(e.SAC_WEB_DIR),
    };
});

export type Config = z.output<typeof ConfigSchema>;
/** Notification channels, policy and delivery tuning from the environment (stored settings override the channel and policy parts). */
export type NotifyConfig = Config['notify'];
export type StoreConfig = Config['store'];

export type ConfigResult = { ok: true; config: Config } | { ok: false; problems: string[] };


/** Parses the environment; on failure returns every problem found, one line each. */
export function loadConfig(env: NodeJS.ProcessEnv): ConfigResult {
  const problems: string[] = [];
  const resolved: Record<string, string | undefined> = {};
  for (const key of Object.keys(EnvSchema.shape)) {
    const value = env[key];
    resolved[key] = value === '' ? undefined : value;
  }
  for (const key of SECRET_KEYS) {
    const file = env[`${key}_FILE`];
    if (!file) continue;
    if (resolved[key] !== undefined) {
      problems.push(`${key}: set either ${key} or ${key}_FILE, not both`);
      continue;
    }
    try {
      resolved[key] = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    } catch (err) {
      problems.push(`${key}_FILE: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
  }
  const parsed = ConfigSchema.safeParse(resolved);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push(`${issue.path.join('.')}: ${issue.message}`);
  }
  if (problems.length > 0 || !parsed.success) return { ok: false, problems };
  return { ok: true, config: parsed.data };
}
