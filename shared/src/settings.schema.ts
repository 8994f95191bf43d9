import { z } from 'zod';
import { SEVERITIES } from './event.schema.js';
import { allowedSignersProblem, isSafeGitRef } from './git.rules.js';
import { LANGUAGES, NOTIFY_CHANNELS } from './notify.schema.js';
import { ApprovalsSettingsSchema } from './approvals.schema.js';
import { trimmedMatch, trimmedText } from './trimmed-text.js';

/**
 * A secret field (password, token, private key). Stored encrypted, never returned: reads show
 * `{ "set": true | false }`. In an update, a string sets it, `null` clears it, and
 * `{ "set": true }` (what a read returned) keeps the stored value.
 */
export const SecretSchema = z.string().min(1, 'must not be empty').max(16_384).nullable();
/** What reads show instead of a secret. */
export interface SecretMask {
  set: boolean;
}

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });
const typePattern = z
  .string()
  .regex(/^[a-z][a-z0-9_-]*(\.[a-z0-9_*-]+)*$/, 'must be an event type or dotted prefix such as rdp.login or ssh.*');
const minutes = (max: number) => z.number().int().min(1).max(max);
const decimalMinutes = (max: number) => z.number().positive().max(max);
const userName = z.string().min(1).max(256);

export const TelegramSettingsSchema = z.strictObject({
  bot_token: SecretSchema.default(null),
  chat_ids: z.array(z.string().regex(/^-?\d{1,20}$|^@[A-Za-z0-9_]{5,64}$/, 'must be a numeric chat id or @channel')).max(50).default([]),
  api_base: httpUrl.default('https://api.telegram.org'),
});

export const WebhookSettingsSchema = z.strictObject({
  url: httpUrl.nullable().default(null),
  /** Key of the X-SAC-Signature HMAC of each body. */
  secret: SecretSchema.default(null),
  headers: z.record(z.string().regex(/^[A-Za-z0-9-]{1,64}$/, 'must be a header name'), z.string().max(1024)).default({}),
  timeout_ms: z.number().int().min(100).max(120_000).default(10_000),
});

export const SmtpSettingsSchema = z.strictObject({
  /** `smtp(s)://user:password@host:port`: a secret because it carries the password. */
  url: SecretSchema.refine((v) => v === null || /^smtps?:\/\//.test(v), 'must be an smtp:// or smtps:// URL').default(null),
  from: z.string().min(3).max(256).nullable().default(null),
  to: z.array(z.email()).max(50).default([]),
});

export const PushSettingsSchema = z.strictObject({
  /** VAPID subject: a mailto: or https: URL. */
  subject: z.string().regex(/^(mailto:|https:\/\/)/, 'must be a mailto: or https: URL').default('mailto:sac@localhost'),
  vapid_public_key: z.string().min(1).max(256).nullable().default(null),
  vapid_private_key: SecretSchema.default(null),
});

export const NotificationPolicySchema = z.strictObject({
  min_severity: z.enum(SEVERITIES).default('high'),
  enabled_channels: z.array(z.enum(NOTIFY_CHANNELS)).default([...NOTIFY_CHANNELS]),
  /** Channels that carry agent lifecycle events (started, stopped, updated). */
  lifecycle_channels: z.array(z.enum(NOTIFY_CHANNELS)).default([...NOTIFY_CHANNELS]),
  language: z.enum(LANGUAGES).default('en'),
  /** Local time of the daily report, HH:MM. */
  report_time: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be HH:MM (24 h)').default('09:00'),
  /** IANA time zone of `report_time`; null = the daemon's. */
  report_timezone: z.string().min(1).max(64).nullable().default(null),
});

export const SeverityOverridesSchema = z.strictObject({
  /** Event type (or dotted prefix) → the severity SAC uses instead of the agent's. */
  overrides: z.record(typePattern, z.enum(SEVERITIES)).default({}),
});

export const HiddenTypesSchema = z.strictObject({
  /** Types (or dotted prefixes) stored but left out of lists, dashboard, counters and problems. */
  types: z.array(typePattern).max(500).default([]),
});

export const HostStatusSettingsSchema = z.strictObject({
  /** Minutes (decimals allowed) without heartbeat or daily report after which a host is stale. */
  stale_minutes: decimalMinutes(43_200).default(300),
  /** Per agent product (e.g. ssh-monitor): its own stale minutes. */
  stale_minutes_by_product: z.record(z.string().min(1).max(64), decimalMinutes(43_200)).default({}),
  /** After a manual resolve, a host-silence problem is not reopened for this many minutes. */
  silence_cooldown_minutes: z.number().min(0).max(525_600).default(720),
});

/**
 * What an event that would open a problem by its severity (warning or above) does, per type:
 * opens (or joins) its own problem, counts into its host's one activity problem, or opens none.
 */
export const TYPE_PROBLEM_CHOICES = ['open', 'count', 'never'] as const;
export type TypeProblemChoice = (typeof TYPE_PROBLEM_CHOICES)[number];

/**
 * The agents' types that count into the host's activity problem by default: RD Gateway 303s with
 * an error code (client and network drops; the flap rule raises the pattern that matters) and the
 * ssh-monitor's bans (the agent has already blocked the address). Failed logins keep opening: a
 * burst of them within the window is one problem that names its addresses, and the cross-host
 * rules read them whatever the choice. Any type not listed opens.
 */
export const DEFAULT_TYPE_PROBLEMS: Readonly<Record<string, TypeProblemChoice>> = {
  'rdg.connection.failed': 'count',
  'ssh.ip.banned': 'count',
};

export const CorrelationSettingsSchema = z.strictObject({
  /** Events of one problem key this many minutes apart (occurred time) join one problem. */
  window_minutes: decimalMinutes(10_080).default(60),
  /** Event type (or dotted prefix) → open / count / never; the most specific pattern wins. */
  type_problems: z
    .record(z.string().max(200), z.enum(TYPE_PROBLEM_CHOICES))
    .superRefine((r, ctx) => {
      // Checked here rather than as the record's key schema, whose issue says only "Invalid key in record".
      for (const key of Object.keys(r)) {
        const bad = typePattern.safeParse(key).error?.issues[0];
        if (bad) ctx.addIssue({ code: 'custom', path: [key], message: `${JSON.stringify(key)} ${bad.message}` });
      }
      if (Object.keys(r).length > 500) ctx.addIssue({ code: 'custom', message: 'must have at most 500 types' });
    })
    .default({ ...DEFAULT_TYPE_PROBLEMS }),
  /** Users whose routine administration (sudo, WinRM, admin shares, shadowing) opens no problem. */
  admin_users: z.array(trimmedText(256)).max(200).default([]),
  /** Success after failures: a successful login from an address that failed this often (any host) in the preceding window. */
  login_after_failures_enabled: z.boolean().default(true),
  login_after_failures_min_failures: z.number().int().min(1).max(1000).default(3),
  login_after_failures_window_minutes: z.number().int().min(1).max(1440).default(15),
  login_after_failures_severity: z.enum(SEVERITIES).default('high'),
  /** Distributed brute force: one address failing on this many distinct hosts within the window. */
  distributed_bruteforce_enabled: z.boolean().default(true),
  distributed_bruteforce_min_hosts: z.number().int().min(2).max(1000).default(4),
  distributed_bruteforce_window_minutes: z.number().int().min(1).max(1440).default(10),
  distributed_bruteforce_severity: z.enum(SEVERITIES).default('high'),
  /** Mass silence: more than this share of the hosts (and at least the minimum) going stale within minutes of each other. */
  mass_silence_enabled: z.boolean().default(true),
  mass_silence_share_percent: z.number().int().min(1).max(100).default(50),
  mass_silence_min_hosts: z.number().int().min(2).max(100_000).default(5),
  mass_silence_within_minutes: z.number().int().min(1).max(1440).default(5),
  /** The hosts of a mass silence raise their own `host_silence` only once silent this much longer. */
  mass_silence_grace_minutes: z.number().int().min(0).max(10_080).default(15),
  mass_silence_severity: z.enum(SEVERITIES).default('high'),
  /**
   * New source for user: a successful login from a country or ASN not in the user's baseline (its
   * successful logins of the last `learning_days`), once the user has been learnt that long.
   */
  new_source_enabled: z.boolean().default(true),
  new_source_learning_days: z.number().int().min(1).max(365).default(30),
  new_source_severity: z.enum(SEVERITIES).default('warning'),
  /** Impossible travel: two successful logins of one user whose countries lie farther apart than this speed allows. */
  impossible_travel_enabled: z.boolean().default(true),
  impossible_travel_speed_kmh: z.number().int().min(100).max(20_000).default(900),
  impossible_travel_severity: z.enum(SEVERITIES).default('high'),
});

/** One or more PEM certificate blocks and nothing else. */
const PEM_CERTIFICATES = /^(?:-----BEGIN CERTIFICATE-----\r?\n[A-Za-z0-9+/=\r\n]+-----END CERTIFICATE-----\s*)+$/;

export const WindowsAdminSettingsSchema = z.strictObject({
  /** WinRM account, e.g. `DOMAIN\\svc-sac` or `svc-sac@corp.example`. */
  username: userName.nullable().default(null),
  password: SecretSchema.default(null),
  transport: z.enum(['http', 'https']).default('https'),
  port: z.number().int().min(1).max(65535).nullable().default(null),
  verify_tls: z.boolean().default(true),
  /**
   * CA certificates (PEM) that WinRM HTTPS certificates are verified against instead of the
   * system store, e.g. the corporate CA; empty = the system store.
   */
  ca_pem: z
    .string()
    .max(65_536)
    .refine((v) => v.trim() === '' || PEM_CERTIFICATES.test(v.trim()), 'must be one or more PEM certificates (-----BEGIN CERTIFICATE-----)')
    .default(''),
  /** OEM code page of the hosts' console output: cp437 (English Windows) or cp866 (Russian Windows). */
  codepage: z.enum(['cp437', 'cp866']).default('cp437'),
});

export const SshAdminSettingsSchema = z.strictObject({
  username: userName.nullable().default(null),
  port: z.number().int().min(1).max(65535).default(22),
  /** OpenSSH private key (PEM). */
  private_key: SecretSchema.default(null),
  passphrase: SecretSchema.default(null),
  password: SecretSchema.default(null),
  /** known_hosts lines; empty = trust on first use is NOT done, unknown hosts are refused. */
  known_hosts: z.string().max(262_144).default(''),
});

export const AgentUpdatesSettingsSchema = z.strictObject({
  enabled: z.boolean().default(false),
  /** Products offered updates, e.g. ssh-monitor, rdp-login-monitor. Empty = all known. */
  products: z.array(z.string().min(1).max(64)).max(20).default([]),
  /** Hosts updated at once per product. */
  max_parallel: z.number().int().min(1).max(1000).default(5),
  /**
   * Minutes a job may wait for its agent (no `agent.update.*` or `updated` event) before SAC pushes
   * the update itself (WinRM to Windows hosts, SSH to Linux hosts); 0 = push only when an admin asks.
   */
  fallback_after_minutes: z.number().int().min(0).max(10_080).default(30),
  /** SSH push, run as root (`sudo -n sh -c`) inside the unpacked ssh-monitor bundle: installs it. */
  ssh_install_command: z.string().min(1).max(1000).default('sh ./install.sh'),
  /** SSH push: restarts the agent after the install. */
  ssh_restart_command: z.string().min(1).max(1000).default('systemctl restart ssh-monitor'),
  /** SSH push: prints the installed version (a bare version or the script's `SSH_MONITOR_VERSION="…"` line). */
  ssh_version_command: z.string().min(1).max(1000).default("grep -h '^SSH_MONITOR_VERSION=' /usr/local/bin/ssh-monitor"),
});

export const GitReposSettingsSchema = z.strictObject({
  /** Where the latest agent versions are read from, one repository per product. */
  repos: z
    .array(
      z.strictObject({
        product: z.string().min(1).max(64),
        url: z.string().min(1).max(2048),
        branch: z
          .string()
          .min(1)
          .max(256)
          .refine(isSafeGitRef, 'must be a branch name (not starting with -, no spaces, .., ~^:?*[ or \\)')
          .nullable()
          .default(null),
        /** Access token for https remotes. */
        token: SecretSchema.default(null),
        /** Where the latest version is read: the newest release tag, or a version file on the branch. */
        version_from: z.enum(['tag', 'file']).default('tag'),
        /** The version file (`version_from: file`); default `version.txt` for rdp-login-monitor, `ssh-monitor` for ssh-monitor. */
        version_file: z.string().min(1).max(256).regex(/^[^\0:-][^\0:]*$/, 'must be a path in the repository, not starting with -').nullable().default(null),
      }),
    )
    .max(20)
    .default([]),
  refresh_minutes: minutes(10_080).default(360),
  /**
   * Whether a release must be a tag signed by one of `allowed_signers` before SAC builds or serves
   * its bundle: `auto` (the default) requires it as soon as allowed signers are configured.
   */
  require_signed_tags: z.enum(['auto', 'on', 'off']).default('auto'),
  /** SSH signing keys trusted for release tags, in OpenSSH `allowed_signers` format. */
  allowed_signers: z
    .string()
    .max(65_536)
    .superRefine((text, ctx) => {
      const problem = allowedSignersProblem(text);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .default(''),
});

export const MaintenanceSettingsSchema = z.strictObject({
  /** Who may create, edit and end maintenance windows: admins only, or monitors too. */
  managers: z.enum(['admin', 'operators']).default('admin'),
});

const escalationStep = z.strictObject({
  /** Re-notify the open (unacknowledged) problem this often. */
  interval_minutes: minutes(1440),
  /** Re-notifications before the final step. */
  max_repeats: z.number().int().min(0).max(50),
  /** Final step: also these channels (besides the ones that carried the opening). */
  final_channels: z.array(z.enum(NOTIFY_CHANNELS)).default([]),
  /** Final step: also these e-mail addresses (through the SMTP channel). */
  final_emails: z.array(z.email()).max(50).default([]),
  /** Only problems of the hosts in these host groups (ids), membership as it is at each step; empty = every host. */
  group_ids: z.array(z.string().min(1).max(64)).max(50).default([]),
});

export const EscalationSettingsSchema = z.strictObject({
  /** Per problem severity; a severity without a policy is never escalated. */
  policies: z.partialRecord(z.enum(SEVERITIES), escalationStep).default({}),
});

export const SecuritySettingsSchema = z.strictObject({
  /** Who must sign in with a TOTP second factor. */
  require_totp: z.enum(['none', 'admins', 'all']).default('none'),
});

/**
 * Scheduled backups of the embedded store (SQLite only). The daemon checks the directory (absolute,
 * an existing directory it can write) before storing it.
 */
export const BackupSettingsSchema = z.strictObject({
  enabled: z.boolean().default(false),
  directory: z
    .string()
    .max(1024)
    .regex(/^(\/|[A-Za-z]:[\\/])/, 'must be an absolute path')
    .nullable()
    .default(null),
  interval_hours: z.number().int().min(1).max(168).default(24),
  /** How many of the newest scheduled backups are kept; older ones are deleted. */
  keep: z.number().int().min(1).max(365).default(7),
}).refine((v) => !v.enabled || v.directory !== null, { path: ['directory'], message: 'is required when backups are enabled' });

const absolutePath = z
  .string()
  .max(1024)
  .regex(/^(\/|[A-Za-z]:[\\/])/, 'must be an absolute path');

/**
 * Offline enrichment of events' source addresses (country, ASN). A null path uses the database
 * shipped with SAC; a path names an MMDB file on the SAC server, read again whenever this changes.
 */
export const GeoipSettingsSchema = z.strictObject({
  enabled: z.boolean().default(true),
  /** A country MMDB (`country_code`, or MaxMind's `country.iso_code`). */
  country_db_path: absolutePath.nullable().default(null),
  /** An ASN MMDB (`autonomous_system_number`, `autonomous_system_organization`). */
  asn_db_path: absolutePath.nullable().default(null),
});

/**
 * Fleet SSH bans (ipset on the Linux hosts over `ssh_admin`). Never-ban entries are checked as
 * CIDRs by the daemon when saved; SAC's own addresses and recent console sign-in addresses are
 * never banned whatever this says.
 */
export const SshBansSettingsSchema = z.strictObject({
  /** What SAC does when a host reports `ssh.ip.banned` or `ssh.bruteforce.mass`: nothing, propose a fleet ban, or apply it. */
  propagation: z.enum(['off', 'suggest', 'automatic']).default('suggest'),
  default_duration_s: z.number().int().min(60).max(2_147_483).default(3600),
  /** Repeat offenders: the duration doubles per earlier ban of the address in this many days, up to `max_duration_s`. */
  repeat_window_days: z.number().int().min(1).max(365).default(30),
  max_duration_s: z.number().int().min(60).max(2_147_483).default(604_800),
  /** Hosts changed at once. */
  concurrency: z.number().int().min(1).max(64).default(8),
  /** Addresses and CIDR ranges never banned (admin networks, partners, monitoring). */
  never_ban: z
    .array(trimmedMatch(/^[0-9A-Fa-f:.]+(\/\d{1,3})?$/, 64, 'must be an address or a CIDR range'))
    .max(200)
    .default([]),
  /** Addresses console users signed in from within this many days are never banned (0: none). */
  signin_days: z.number().int().min(0).max(365).default(30),
});

/** One zod schema per settings category; every field has a default, so `{}` parses to the defaults. */
export const SETTINGS_SCHEMAS = {
  telegram: TelegramSettingsSchema,
  webhook: WebhookSettingsSchema,
  smtp: SmtpSettingsSchema,
  push: PushSettingsSchema,
  notification_policy: NotificationPolicySchema,
  severity_overrides: SeverityOverridesSchema,
  hidden_types: HiddenTypesSchema,
  host_status: HostStatusSettingsSchema,
  correlation: CorrelationSettingsSchema,
  windows_admin: WindowsAdminSettingsSchema,
  ssh_admin: SshAdminSettingsSchema,
  agent_updates: AgentUpdatesSettingsSchema,
  git_repos: GitReposSettingsSchema,
  maintenance: MaintenanceSettingsSchema,
  escalation: EscalationSettingsSchema,
  security: SecuritySettingsSchema,
  backup: BackupSettingsSchema,
  geoip: GeoipSettingsSchema,
  approvals: ApprovalsSettingsSchema,
  ssh_bans: SshBansSettingsSchema,
} as const;

export type SettingsCategory = keyof typeof SETTINGS_SCHEMAS;
export const SETTINGS_CATEGORIES = Object.keys(SETTINGS_SCHEMAS) as SettingsCategory[];
/** The effective (decrypted) value of a category. */
export type SettingsValue<C extends SettingsCategory> = z.output<(typeof SETTINGS_SCHEMAS)[C]>;

/** Secret fields per category, as dotted paths; `*` stands for every array item. */
export const SETTINGS_SECRET_PATHS: Record<SettingsCategory, readonly string[]> = {
  telegram: ['bot_token'],
  webhook: ['secret', 'headers.*'],
  smtp: ['url'],
  push: ['vapid_private_key'],
  notification_policy: [],
  severity_overrides: [],
  hidden_types: [],
  host_status: [],
  correlation: [],
  windows_admin: ['password'],
  ssh_admin: ['private_key', 'passphrase', 'password'],
  agent_updates: [],
  git_repos: ['repos.*.token'],
  maintenance: [],
  escalation: [],
  security: [],
  backup: [],
  geoip: [],
  approvals: [],
  ssh_bans: [],
};

/**
 * Where a category's stored secrets are sent. Changing one of `fields` (through an update) needs
 * every stored secret of `secrets` given again in the same request, so that a stored secret never
 * goes to a destination chosen without it (an admin session or a stolen admin token pointing it at
 * a host of their choosing and pressing Test).
 */
export interface SecretDestinationRule {
  fields: readonly string[];
  secrets: readonly string[];
}

/** The WinRM fields that say where and how the Windows administrator password is sent (the CA bundle decides which server is believed). */
export const WINDOWS_ADMIN_DESTINATION_FIELDS: readonly (keyof z.input<typeof WindowsAdminSettingsSchema>)[] = [
  'username',
  'transport',
  'port',
  'verify_tls',
  'ca_pem',
];

/** Destination fields per category and the secrets they guard (git repository rows: `SETTINGS_SECRET_ROW_DESTINATIONS`). */
export const SETTINGS_SECRET_DESTINATIONS: Partial<Record<SettingsCategory, SecretDestinationRule>> = {
  telegram: { fields: ['api_base'], secrets: ['bot_token'] },
  webhook: { fields: ['url'], secrets: ['headers'] },
  windows_admin: { fields: WINDOWS_ADMIN_DESTINATION_FIELDS, secrets: ['password'] },
  // All three: a stored password kept beside a new key would become the method, at the new place, once the key is cleared.
  ssh_admin: { fields: ['username', 'port', 'known_hosts'], secrets: ['private_key', 'passphrase', 'password'] },
};

/**
 * Lists whose rows each carry a secret to the row's own destination (a git repository's token goes
 * to its URL). A kept secret belongs to the stored row at the same position, so a row whose
 * destination differs from that stored row (edited, or moved by a removal above it) needs it again.
 */
export const SETTINGS_SECRET_ROW_DESTINATIONS: Partial<Record<SettingsCategory, { list: string; secret: string; destination: readonly string[] }>> = {
  git_repos: { list: 'repos', secret: 'token', destination: ['product', 'url'] },
};

/** `settings.update` input: the category and the top-level fields to change (others keep their value). */
export const SettingsUpdateSchema = z.strictObject({
  category: z.enum(SETTINGS_CATEGORIES as [SettingsCategory, ...SettingsCategory[]]),
  values: z.record(z.string(), z.unknown()),
});

/** A category as admins read it: secrets masked, which fields are stored (the rest come from the environment or defaults). */
export interface SettingsView {
  category: SettingsCategory;
  values: Record<string, unknown>;
  stored_fields: string[];
  updated_at: string | null;
  updated_by: string | null;
}
