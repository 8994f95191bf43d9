import type { z } from 'zod';
import type { GitReposSettingsSchema, EscalationSettingsSchema, SETTINGS_SCHEMAS, SettingsCategory } from './settings.schema.js';

/**
 * What each settings category and field is called and what it does, in every console language.
 * The console's settings page and the README's settings table are both made from this, so they
 * cannot drift; the types make a new field without text here a compile error.
 */
export type HelpLanguage = 'en' | 'ru';

export interface FieldHelp {
  label: string;
  help: string;
}

type FieldsOf<S extends z.ZodType> = Record<keyof z.output<S>, FieldHelp>;

export type CategoryHelp<C extends SettingsCategory> = {
  title: string;
  /** One or two sentences: what the category is for. */
  help: string;
  fields: FieldsOf<(typeof SETTINGS_SCHEMAS)[C]>;
};

export type SettingsHelp = { [C in SettingsCategory]: CategoryHelp<C> } & {
  /** The fields of one git repository row. */
  git_repo: Record<keyof z.output<typeof GitReposSettingsSchema>['repos'][number], FieldHelp>;
  /** The fields of one escalation policy (per severity). */
  escalation_step: Record<keyof NonNullable<z.output<typeof EscalationSettingsSchema>['policies']['high']>, FieldHelp>;
};

const en: SettingsHelp = {
  telegram: {
    title: 'Telegram',
    help: 'Alerts as Telegram messages: the bot token from BotFather and the chats the bot writes to.',
    fields: {
      bot_token: { label: 'Bot token', help: 'The token BotFather gave for your bot, e.g. 123456:ABC…' },
      chat_ids: { label: 'Chat ids', help: 'Where alerts go: numeric chat ids (groups start with -100) or @channel names, one per line. The bot must be a member.' },
      api_base: { label: 'API base URL', help: 'Leave as is unless you run your own Bot API server.' },
    },
  },
  webhook: {
    title: 'Webhook',
    help: 'One JSON POST per alert to your URL, signed with the secret in the X-SAC-Signature header.',
    fields: {
      url: { label: 'URL', help: 'The http(s) address that receives the POSTs; empty turns the webhook off.' },
      secret: { label: 'Signing secret', help: 'Key of the HMAC-SHA256 signature of each body; the receiver checks it.' },
      headers: { label: 'Extra headers', help: 'Headers sent with every POST, such as an Authorization header; their values are secret.' },
      timeout_ms: { label: 'Timeout, ms', help: 'How long one POST may take before it counts as failed and is retried.' },
    },
  },
  smtp: {
    title: 'E-mail (SMTP)',
    help: 'Alerts and the daily report by e-mail: the mail server, the sender and the recipients.',
    fields: {
      url: { label: 'Server URL', help: 'smtp://user:password@host:587 (STARTTLS) or smtps://user:password@host:465.' },
      from: { label: 'From', help: 'Sender address, e.g. SAC <sac@example.com>.' },
      to: { label: 'To', help: 'Recipient addresses, one per line.' },
    },
  },
  push: {
    title: 'Push',
    help: 'Browser and phone push: the VAPID subject and key pair that push services check. SAC generates the keys on first start.',
    fields: {
      subject: { label: 'VAPID subject', help: 'A contact for push services: mailto:you@example.com or an https:// URL.' },
      vapid_public_key: { label: 'VAPID public key', help: 'Public half of the key pair; browsers subscribe with it. Changing it drops existing subscriptions.' },
      vapid_private_key: { label: 'VAPID private key', help: 'Private half of the key pair.' },
    },
  },
  notification_policy: {
    title: 'Notification policy',
    help: 'What is sent where: the lowest severity that notifies, the channels in use, agent lifecycle notices, the message language and the daily report time.',
    fields: {
      min_severity: { label: 'Minimum severity', help: 'Events and problems below this are not sent (sign-ins and daily reports always are).' },
      enabled_channels: { label: 'Enabled channels', help: 'Channels that carry alerts; each must also be configured in its own category.' },
      lifecycle_channels: { label: 'Agent lifecycle channels', help: 'Channels told when an agent starts, stops or updates.' },
      language: { label: 'Language', help: 'Language of messages and of the daily report.' },
      report_time: { label: 'Daily report time', help: 'Local time (HH:MM, 24 h) the daily report is made and sent.' },
      report_timezone: { label: 'Report time zone', help: 'IANA zone of the report time, e.g. Europe/Moscow; empty = the server’s zone.' },
    },
  },
  severity_overrides: {
    title: 'Severity overrides',
    help: 'A different severity for an event type or prefix, applied as events arrive; the agent’s original is kept.',
    fields: {
      overrides: { label: 'Overrides', help: 'One "type = severity" per line, e.g. ssh.login.failed = warning; a prefix such as rdp.* covers its types.' },
    },
  },
  hidden_types: {
    title: 'Hidden types',
    help: 'Event types (or prefixes) stored but left out of lists, counters, problems and notifications.',
    fields: {
      types: { label: 'Hidden types', help: 'One type or prefix per line, e.g. agent.heartbeat or rdg.*.' },
    },
  },
  host_status: {
    title: 'Host status',
    help: 'When a host counts as stale (minutes without any event, per agent product if needed) and how soon a silent host may raise a problem again.',
    fields: {
      stale_minutes: { label: 'Stale after, minutes', help: 'Minutes without heartbeat or daily report after which a host is stale (decimals allowed).' },
      stale_minutes_by_product: { label: 'Stale minutes per product', help: 'One "product = minutes" per line for agents that report less often, e.g. ssh-monitor = 1500.' },
      silence_cooldown_minutes: { label: 'Silence re-open cooldown, minutes', help: 'After a silent-host problem is resolved by hand, it is not raised again for this long.' },
    },
  },
  correlation: {
    title: 'Correlation',
    help: 'How long matching events keep joining the same problem, which event types open problems, and the login and silence rules that look across hosts.',
    fields: {
      window_minutes: { label: 'Window, minutes', help: 'Events of one host, type and rule this close in time join one problem.' },
      type_problems: {
        label: 'Problems per event type',
        help: 'What a warning-or-worse event of a type (or dotted prefix; the most specific wins) does: open its own problem, count into its host’s activity problem (info, pages no one), or open none. Types not listed open.',
      },
      admin_users: {
        label: 'Known admin users',
        help: 'Their sudo, WinRM sessions, admin-share access and session shadowing open no problem. The Windows and SSH admin accounts SAC uses count as listed.',
      },
      login_after_failures_enabled: { label: 'Success after failures', help: 'Raise a problem when an address logs in successfully after failing on any host.' },
      login_after_failures_min_failures: { label: 'Success after failures: failures', help: 'Failed logins of the address (on any host) that must precede the success.' },
      login_after_failures_window_minutes: { label: 'Success after failures: window, minutes', help: 'How far back before the success the failures are counted.' },
      login_after_failures_severity: { label: 'Success after failures: severity', help: 'Severity of the problem.' },
      distributed_bruteforce_enabled: { label: 'Distributed brute force', help: 'Raise a problem when one address fails to log in on many hosts.' },
      distributed_bruteforce_min_hosts: { label: 'Distributed brute force: hosts', help: 'Distinct hosts the address must fail on within the window.' },
      distributed_bruteforce_window_minutes: { label: 'Distributed brute force: window, minutes', help: 'The span the failures on different hosts must fall in.' },
      distributed_bruteforce_severity: { label: 'Distributed brute force: severity', help: 'Severity of the problem.' },
      mass_silence_enabled: { label: 'Mass silence', help: 'One problem instead of one per host when many hosts go silent together (the collector or the network is the likely cause).' },
      mass_silence_share_percent: { label: 'Mass silence: share of hosts, %', help: 'More than this share of all hosts must go silent together.' },
      mass_silence_min_hosts: { label: 'Mass silence: minimum hosts', help: 'And at least this many hosts.' },
      mass_silence_within_minutes: { label: 'Mass silence: within, minutes', help: 'Hosts that turn stale this close in time count as going silent together.' },
      mass_silence_grace_minutes: { label: 'Mass silence: grace, minutes', help: 'The hosts of a mass silence raise their own silence problems only once still silent this much longer.' },
      mass_silence_severity: { label: 'Mass silence: severity', help: 'Severity of the problem.' },
      new_source_enabled: { label: 'New source for user', help: "Raise a problem when a user logs in successfully from a country or ASN not in their baseline (private addresses excluded)." },
      new_source_learning_days: { label: 'New source for user: learning, days', help: "The baseline holds the user's successful logins of this many days; a user seen for less is still learning and raises nothing." },
      new_source_severity: { label: 'New source for user: severity', help: 'Severity of the problem.' },
      impossible_travel_enabled: { label: 'Impossible travel', help: "Raise a problem when two successful logins of one user come from countries too far apart for the time between them (private addresses excluded)." },
      impossible_travel_speed_kmh: { label: 'Impossible travel: speed, km/h', help: 'The distance between the countries over the time between the logins must exceed this speed.' },
      impossible_travel_severity: { label: 'Impossible travel: severity', help: 'Severity of the problem.' },
    },
  },
  windows_admin: {
    title: 'Windows admin (WinRM)',
    help: 'The account SAC uses over WinRM for remote actions on Windows hosts (sessions, log-off, agent update).',
    fields: {
      username: { label: 'Username', help: 'DOMAIN\\account or account@domain.example; a member of the hosts’ Administrators or Remote Management Users.' },
      password: { label: 'Password', help: 'That account’s password.' },
      transport: { label: 'Transport', help: 'https (port 5986) is encrypted; http (5985) only inside a trusted network.' },
      port: { label: 'Port', help: 'Empty = 5986 for https, 5985 for http.' },
      verify_tls: { label: 'Verify TLS', help: 'Check the hosts’ certificates; turn off only for self-signed certificates you trust.' },
      ca_pem: { label: 'CA certificates (PEM)', help: 'Your corporate CA: HTTPS certificates are checked against these instead of the system store. Empty = the system store.' },
      codepage: { label: 'Console code page', help: 'cp437 for English Windows, cp866 for Russian Windows: how command output is decoded.' },
    },
  },
  ssh_admin: {
    title: 'SSH admin',
    help: 'The account and key SAC uses over SSH for remote actions on Linux hosts.',
    fields: {
      username: { label: 'Username', help: 'The account SAC signs in as; it needs sudo for the actions.' },
      port: { label: 'Port', help: 'SSH port of the hosts.' },
      private_key: { label: 'Private key', help: 'OpenSSH private key, the whole text from -----BEGIN to END-----.' },
      passphrase: { label: 'Key passphrase', help: 'Only if the private key is encrypted.' },
      password: { label: 'Password', help: 'Used only when no private key is configured; never tried after a refused key.' },
      known_hosts: { label: 'known_hosts', help: 'Host keys SAC trusts, as lines of an OpenSSH known_hosts file (ssh-keyscan output). Unknown hosts are refused.' },
    },
  },
  agent_updates: {
    title: 'Agent updates',
    help: 'Whether and how agents are updated to the latest version read from git, and how many hosts at once.',
    fields: {
      enabled: { label: 'Enabled', help: 'Offer outdated agents the latest version automatically.' },
      products: { label: 'Products', help: 'Agent products offered updates, one per line (ssh-monitor, rdp-login-monitor); empty = all.' },
      max_parallel: { label: 'Hosts at once', help: 'How many hosts of one product update at the same time.' },
      fallback_after_minutes: { label: 'Push the update after, minutes', help: 'If an agent has not started its update after this long, SAC installs it itself (WinRM on Windows, SSH on Linux); 0 = only when an admin asks.' },
      ssh_install_command: { label: 'SSH push: install command', help: 'Run as root with sudo inside the unpacked bundle on a Linux host, e.g. sh ./install.sh.' },
      ssh_restart_command: { label: 'SSH push: restart command', help: 'Run as root after the install, e.g. systemctl restart ssh-monitor.' },
      ssh_version_command: { label: 'SSH push: version command', help: 'Run as root after the restart; its output must contain the installed version for the push to count as a success.' },
    },
  },
  git_repos: {
    title: 'Git repositories',
    help: 'The git repositories the agents’ latest versions are read from, one per product, and how often they are read.',
    fields: {
      repos: { label: 'Repositories', help: 'One row per agent product; "Test" reads the repository now without changing anything.' },
      refresh_minutes: { label: 'Read every, minutes', help: 'How often each repository is read for a new version.' },
      require_signed_tags: { label: 'Require signed release tags', help: 'auto: as soon as allowed signers are set, a release must be a tag signed by one of them, or SAC neither builds nor serves its bundle; on: always (no signers = every release refused); off: tags are trusted as fetched.' },
      allowed_signers: { label: 'Allowed signers', help: 'SSH signing keys trusted for release tags, one per line in OpenSSH allowed_signers format: principal, key type, key (e.g. release@example.com ssh-ed25519 AAAA…).' },
    },
  },
  maintenance: {
    title: 'Maintenance windows',
    help: 'Who may plan maintenance windows, during which alerts of the chosen hosts are stored but not sent.',
    fields: {
      managers: { label: 'Who manages windows', help: 'Admins only, or monitors too.' },
    },
  },
  escalation: {
    title: 'Escalation',
    help: 'Re-notifying problems nobody acknowledges, per severity; a severity without a policy is never escalated.',
    fields: {
      policies: { label: 'Policies', help: 'One policy per problem severity.' },
    },
  },
  security: {
    title: 'Sign-in security',
    help: 'Who must sign in with a second factor (a TOTP code from an authenticator app).',
    fields: {
      require_totp: { label: 'Require two-factor sign-in', help: 'Nobody, admins, or everyone; people without it set it up at their next sign-in.' },
    },
  },
  backup: {
    title: 'Scheduled backups',
    help: 'Backups of the embedded SQLite store taken by the daemon itself (not used with MongoDB). The master key is not copied: keep the data dir\'s master-key file apart once.',
    fields: {
      enabled: { label: 'Enabled', help: 'Take a backup every interval.' },
      directory: { label: 'Directory', help: 'Absolute path of an existing directory on the SAC server that the daemon can write.' },
      interval_hours: { label: 'Every (hours)', help: 'Hours between two backups, 1–168.' },
      keep: { label: 'Keep', help: 'How many of the newest backups to keep; older ones are deleted.' },
    },
  },
  geoip: {
    title: 'Address enrichment',
    help: 'Country and autonomous system (ASN) of each event\'s source address, looked up offline when the event arrives. Without a path, the databases shipped with SAC are used; a bad or missing file turns enrichment off (the health page says why) and never stops ingest.',
    fields: {
      enabled: { label: 'Enabled', help: 'Look up the country and ASN of new events\' source addresses.' },
      country_db_path: { label: 'Country database', help: 'Absolute path of a country MMDB file on the SAC server; empty = the shipped one. Saving reloads it.' },
      asn_db_path: { label: 'ASN database', help: 'Absolute path of an ASN MMDB file on the SAC server; empty = the shipped table. Saving reloads it.' },
    },
  },
  approvals: {
    title: 'Two-person approval',
    help: 'Actions that need a second person: the action becomes a request (with a reason) that another user allowed to do it approves or denies; nobody approves their own. Approvers see the count in the menu and get a Telegram message with Approve/Deny buttons when their account is linked.',
    fields: {
      require: { label: 'Needs approval', help: 'session_logoff: logging a session off a Windows host; agent_update: starting an agent update of one host; rollout_start: starting a staged rollout; host_delete: deleting a host; fleet_ban: banning an address on the Linux hosts (an automatic ban then stays a proposal).' },
      expiry_minutes: { label: 'Expires after (minutes)', help: 'A request not decided in this time expires and runs nothing, 1–1440.' },
    },
  },
  ssh_bans: {
    title: 'SSH bans across the fleet',
    help: 'Banning an attacking address on every Linux host (ipset ssh_monitor_ban / ssh_monitor_ban_v6 over the SSH administrator account). SAC\'s own addresses and the addresses console users signed in from are never banned.',
    fields: {
      propagation: { label: 'When a host bans an address', help: 'When a host reports ssh.ip.banned or ssh.bruteforce.mass: do nothing, propose a fleet ban to apply with one click, or apply it at once.' },
      default_duration_s: { label: 'Default duration (s)', help: 'Seconds a ban lasts when none is given, 60–2147483.' },
      repeat_window_days: { label: 'Repeat window (days)', help: 'The duration doubles for each earlier ban of the same address within this many days.' },
      max_duration_s: { label: 'Longest ban (s)', help: 'Repeat offenders\' bans are capped at this many seconds.' },
      concurrency: { label: 'Hosts at once', help: 'How many hosts are changed over SSH at the same time, 1–64.' },
      never_ban: { label: 'Never ban', help: 'Addresses and CIDR ranges never banned (admin networks, partners, monitoring), one per line.' },
      signin_days: { label: 'Protect sign-in addresses (days)', help: 'Addresses console users signed in from within this many days are never banned; 0 turns this off.' },
    },
  },
  git_repo: {
    product: { label: 'Product', help: 'Agent product the repository holds, e.g. ssh-monitor.' },
    url: { label: 'Repository URL', help: 'https://… or a path on this server.' },
    branch: { label: 'Branch', help: 'Empty = the default branch.' },
    token: { label: 'Access token', help: 'For private https repositories.' },
    version_from: { label: 'Version from', help: 'The newest release tag, or a version file on the branch.' },
    version_file: { label: 'Version file', help: 'Path of the version file; empty = the product’s usual file.' },
  },
  escalation_step: {
    interval_minutes: { label: 'Repeat every, minutes', help: 'How often an unacknowledged problem is sent again.' },
    max_repeats: { label: 'Repeats', help: 'How many times before the final step.' },
    final_channels: { label: 'Final step: also channels', help: 'Channels added at the final step.' },
    final_emails: { label: 'Final step: also e-mail', help: 'Addresses mailed at the final step, one per line.' },
  },
};

const ru: SettingsHelp = {
  telegram: {
    title: 'Telegram',
    help: 'Оповещения сообщениями Telegram: токен бота от BotFather и чаты, в которые бот пишет.',
    fields: {
      bot_token: { label: 'Токен бота', help: 'Токен, выданный BotFather, например 123456:ABC…' },
      chat_ids: { label: 'Чаты', help: 'Куда слать: числовые id чатов (группы начинаются с -100) или имена @channel, по одному в строке. Бот должен быть участником.' },
      api_base: { label: 'Адрес API', help: 'Менять, только если у вас свой сервер Bot API.' },
    },
  },
  webhook: {
    title: 'Вебхук',
    help: 'Один JSON POST на каждое оповещение на ваш адрес, подписанный секретом в заголовке X-SAC-Signature.',
    fields: {
      url: { label: 'URL', help: 'Адрес http(s), принимающий запросы; пусто — вебхук выключен.' },
      secret: { label: 'Секрет подписи', help: 'Ключ подписи HMAC-SHA256 каждого тела; получатель её проверяет.' },
      headers: { label: 'Доп. заголовки', help: 'Заголовки каждого запроса, например Authorization; их значения секретны.' },
      timeout_ms: { label: 'Тайм-аут, мс', help: 'Сколько может длиться один запрос, прежде чем он считается неудачным и повторяется.' },
    },
  },
  smtp: {
    title: 'Почта (SMTP)',
    help: 'Оповещения и ежедневный отчёт по почте: почтовый сервер, отправитель и получатели.',
    fields: {
      url: { label: 'Адрес сервера', help: 'smtp://user:password@host:587 (STARTTLS) или smtps://user:password@host:465.' },
      from: { label: 'Отправитель', help: 'Адрес отправителя, например SAC <sac@example.com>.' },
      to: { label: 'Получатели', help: 'Адреса получателей, по одному в строке.' },
    },
  },
  push: {
    title: 'Push',
    help: 'Push-уведомления в браузер и на телефон: VAPID-контакт и пара ключей, которые проверяют push-сервисы. SAC создаёт ключи при первом запуске.',
    fields: {
      subject: { label: 'VAPID-контакт', help: 'Контакт для push-сервисов: mailto:you@example.com или адрес https://.' },
      vapid_public_key: { label: 'Открытый ключ VAPID', help: 'Открытая половина пары; браузеры подписываются с ним. Смена ключа сбрасывает подписки.' },
      vapid_private_key: { label: 'Закрытый ключ VAPID', help: 'Закрытая половина пары ключей.' },
    },
  },
  notification_policy: {
    title: 'Политика уведомлений',
    help: 'Что и куда отправлять: минимальная важность, используемые каналы, уведомления о жизненном цикле агентов, язык сообщений и время ежедневного отчёта.',
    fields: {
      min_severity: { label: 'Минимальная важность', help: 'События и проблемы ниже этой важности не отправляются (входы и ежедневные отчёты — всегда).' },
      enabled_channels: { label: 'Включённые каналы', help: 'Каналы для оповещений; каждый нужно ещё настроить в его разделе.' },
      lifecycle_channels: { label: 'Каналы жизненного цикла агентов', help: 'Каналы, куда сообщается о запуске, остановке и обновлении агента.' },
      language: { label: 'Язык', help: 'Язык сообщений и ежедневного отчёта.' },
      report_time: { label: 'Время ежедневного отчёта', help: 'Местное время (ЧЧ:ММ, 24 ч), когда отчёт формируется и отправляется.' },
      report_timezone: { label: 'Часовой пояс отчёта', help: 'Пояс IANA, например Europe/Moscow; пусто — пояс сервера.' },
    },
  },
  severity_overrides: {
    title: 'Переопределение важности',
    help: 'Другая важность для типа событий или префикса, применяется при приёме; исходная важность агента сохраняется.',
    fields: {
      overrides: { label: 'Переопределения', help: 'По одному «тип = важность» в строке, например ssh.login.failed = warning; префикс вида rdp.* охватывает свои типы.' },
    },
  },
  hidden_types: {
    title: 'Скрытые типы',
    help: 'Типы событий (или префиксы), которые хранятся, но не попадают в списки, счётчики, проблемы и уведомления.',
    fields: {
      types: { label: 'Скрытые типы', help: 'По одному типу или префиксу в строке, например agent.heartbeat или rdg.*.' },
    },
  },
  host_status: {
    title: 'Статус хостов',
    help: 'Когда хост считается устаревшим (минуты без событий, при необходимости по продукту агента) и как скоро молчащий хост снова создаст проблему.',
    fields: {
      stale_minutes: { label: 'Устаревает через, мин', help: 'Минуты без пульса и ежедневного отчёта, после которых хост устаревший (можно с дробью).' },
      stale_minutes_by_product: { label: 'Минуты по продуктам', help: 'По одному «продукт = минуты» в строке для агентов, отчитывающихся реже, например ssh-monitor = 1500.' },
      silence_cooldown_minutes: { label: 'Пауза повторного открытия, мин', help: 'После ручного решения проблемы «хост молчит» она не создаётся снова столько минут.' },
    },
  },
  correlation: {
    title: 'Корреляция',
    help: 'Как долго подходящие события присоединяются к одной проблеме, какие типы событий открывают проблемы, и правила входов и молчания, смотрящие на несколько хостов.',
    fields: {
      window_minutes: { label: 'Окно, мин', help: 'События одного хоста, типа и правила, настолько близкие по времени, объединяются в одну проблему.' },
      type_problems: {
        label: 'Проблемы по типам событий',
        help: 'Что делает событие типа (или префикса через точку; побеждает самый точный) с важностью «предупреждение» и выше: открывает свою проблему, засчитывается в проблему активности хоста (info, никого не вызывает) или не открывает ничего. Неуказанные типы открывают.',
      },
      admin_users: {
        label: 'Известные администраторы',
        help: 'Их sudo, сеансы WinRM, доступ к админ-шарам и теневые подключения не открывают проблем. Учётные записи Windows и SSH, под которыми входит SAC, считаются указанными.',
      },
      login_after_failures_enabled: { label: 'Успех после неудач', help: 'Создавать проблему, когда адрес успешно входит после неудачных попыток на любом хосте.' },
      login_after_failures_min_failures: { label: 'Успех после неудач: неудач', help: 'Сколько неудачных входов адреса (на любом хосте) должно предшествовать успеху.' },
      login_after_failures_window_minutes: { label: 'Успех после неудач: окно, мин', help: 'За сколько минут до успеха считаются неудачи.' },
      login_after_failures_severity: { label: 'Успех после неудач: важность', help: 'Важность проблемы.' },
      distributed_bruteforce_enabled: { label: 'Распределённый перебор', help: 'Создавать проблему, когда один адрес не может войти на многих хостах.' },
      distributed_bruteforce_min_hosts: { label: 'Распределённый перебор: хостов', help: 'На скольких разных хостах адрес должен получить отказ в пределах окна.' },
      distributed_bruteforce_window_minutes: { label: 'Распределённый перебор: окно, мин', help: 'Промежуток, в который должны попасть отказы на разных хостах.' },
      distributed_bruteforce_severity: { label: 'Распределённый перебор: важность', help: 'Важность проблемы.' },
      mass_silence_enabled: { label: 'Массовое молчание', help: 'Одна проблема вместо проблемы на каждый хост, когда много хостов замолкают разом (вероятная причина — сборщик или сеть).' },
      mass_silence_share_percent: { label: 'Массовое молчание: доля хостов, %', help: 'Замолчать разом должно больше этой доли всех хостов.' },
      mass_silence_min_hosts: { label: 'Массовое молчание: минимум хостов', help: 'И не меньше стольких хостов.' },
      mass_silence_within_minutes: { label: 'Массовое молчание: в пределах, мин', help: 'Хосты, ставшие устаревшими настолько близко по времени, считаются замолчавшими разом.' },
      mass_silence_grace_minutes: { label: 'Массовое молчание: отсрочка, мин', help: 'Хосты массового молчания создают свои проблемы молчания, только если молчат ещё столько минут.' },
      mass_silence_severity: { label: 'Массовое молчание: важность', help: 'Важность проблемы.' },
      new_source_enabled: { label: 'Новый источник пользователя', help: 'Создавать проблему, когда пользователь успешно входит из страны или ASN, которых нет в его базовой линии (частные адреса не учитываются).' },
      new_source_learning_days: { label: 'Новый источник: обучение, дней', help: 'Базовая линия хранит успешные входы пользователя за столько дней; пока пользователь известен меньше, он обучается и проблем не создаёт.' },
      new_source_severity: { label: 'Новый источник: важность', help: 'Важность проблемы.' },
      impossible_travel_enabled: { label: 'Невозможное перемещение', help: 'Создавать проблему, когда два успешных входа пользователя идут из стран, слишком далёких друг от друга для времени между входами (частные адреса не учитываются).' },
      impossible_travel_speed_kmh: { label: 'Невозможное перемещение: скорость, км/ч', help: 'Расстояние между странами, делённое на время между входами, должно превысить эту скорость.' },
      impossible_travel_severity: { label: 'Невозможное перемещение: важность', help: 'Важность проблемы.' },
    },
  },
  windows_admin: {
    title: 'Администратор Windows (WinRM)',
    help: 'Учётная запись, с которой SAC выполняет действия на хостах Windows через WinRM (сеансы, выход, обновление агента).',
    fields: {
      username: { label: 'Пользователь', help: 'ДОМЕН\\учётка или учётка@домен.example; член группы Administrators или Remote Management Users на хостах.' },
      password: { label: 'Пароль', help: 'Пароль этой учётной записи.' },
      transport: { label: 'Транспорт', help: 'https (порт 5986) шифруется; http (5985) — только внутри доверенной сети.' },
      port: { label: 'Порт', help: 'Пусто — 5986 для https, 5985 для http.' },
      verify_tls: { label: 'Проверять TLS', help: 'Проверять сертификаты хостов; выключать только для доверенных самоподписанных.' },
      ca_pem: { label: 'Сертификаты УЦ (PEM)', help: 'Корпоративный УЦ: сертификаты HTTPS проверяются по ним, а не по системному хранилищу. Пусто — системное хранилище.' },
      codepage: { label: 'Кодовая страница консоли', help: 'cp437 для английской Windows, cp866 для русской: как декодируется вывод команд.' },
    },
  },
  ssh_admin: {
    title: 'Администратор SSH',
    help: 'Учётная запись и ключ, с которыми SAC выполняет действия на хостах Linux через SSH.',
    fields: {
      username: { label: 'Пользователь', help: 'Учётная запись, под которой входит SAC; для действий нужен sudo.' },
      port: { label: 'Порт', help: 'SSH-порт хостов.' },
      private_key: { label: 'Закрытый ключ', help: 'Закрытый ключ OpenSSH, весь текст от -----BEGIN до END-----.' },
      passphrase: { label: 'Пароль ключа', help: 'Только если закрытый ключ зашифрован.' },
      password: { label: 'Пароль', help: 'Используется, только если закрытый ключ не задан; после отказа в ключе не пробуется.' },
      known_hosts: { label: 'known_hosts', help: 'Ключи хостов, которым SAC доверяет, строками файла known_hosts OpenSSH (вывод ssh-keyscan). Неизвестные хосты отклоняются.' },
    },
  },
  agent_updates: {
    title: 'Обновление агентов',
    help: 'Обновлять ли агентов до последней версии из git, как и сколько хостов одновременно.',
    fields: {
      enabled: { label: 'Включено', help: 'Автоматически предлагать устаревшим агентам последнюю версию.' },
      products: { label: 'Продукты', help: 'Продукты агентов, которым предлагаются обновления, по одному в строке (ssh-monitor, rdp-login-monitor); пусто — все.' },
      max_parallel: { label: 'Хостов одновременно', help: 'Сколько хостов одного продукта обновляются одновременно.' },
      fallback_after_minutes: { label: 'Установить самому через, мин', help: 'Если агент не начал обновление за это время, SAC ставит его сам (WinRM на Windows, SSH на Linux); 0 — только по запросу администратора.' },
      ssh_install_command: { label: 'Установка по SSH: команда установки', help: 'Выполняется от root через sudo в распакованном пакете на Linux-хосте, например sh ./install.sh.' },
      ssh_restart_command: { label: 'Установка по SSH: команда перезапуска', help: 'Выполняется от root после установки, например systemctl restart ssh-monitor.' },
      ssh_version_command: { label: 'Установка по SSH: команда версии', help: 'Выполняется от root после перезапуска; её вывод должен содержать установленную версию, иначе установка считается неудачной.' },
    },
  },
  git_repos: {
    title: 'Git-репозитории',
    help: 'Git-репозитории, из которых читаются последние версии агентов, по одному на продукт, и как часто.',
    fields: {
      repos: { label: 'Репозитории', help: 'Строка на продукт агента; «Проверить» читает репозиторий сейчас, ничего не меняя.' },
      refresh_minutes: { label: 'Читать каждые, мин', help: 'Как часто каждый репозиторий проверяется на новую версию.' },
      require_signed_tags: { label: 'Требовать подписанные теги релизов', help: 'auto: как только заданы доверенные подписи, релиз должен быть тегом, подписанным одной из них, иначе SAC не собирает и не раздаёт его пакет; on: всегда (без подписей любой релиз отклоняется); off: тегам верят как есть.' },
      allowed_signers: { label: 'Доверенные подписи', help: 'SSH-ключи подписи, которым доверяются теги релизов, по одному в строке в формате OpenSSH allowed_signers: принципал, тип ключа, ключ (например, release@example.com ssh-ed25519 AAAA…).' },
    },
  },
  maintenance: {
    title: 'Окна обслуживания',
    help: 'Кто может планировать окна обслуживания, во время которых оповещения выбранных хостов хранятся, но не отправляются.',
    fields: {
      managers: { label: 'Кто управляет окнами', help: 'Только администраторы или также мониторы.' },
    },
  },
  escalation: {
    title: 'Эскалация',
    help: 'Повторные уведомления о неподтверждённых проблемах, по важности; важность без политики не эскалируется.',
    fields: {
      policies: { label: 'Политики', help: 'Одна политика на важность проблемы.' },
    },
  },
  security: {
    title: 'Безопасность входа',
    help: 'Кто должен входить со вторым фактором (TOTP-код из приложения-аутентификатора).',
    fields: {
      require_totp: { label: 'Требовать двухфакторный вход', help: 'Никто, администраторы или все; у кого его нет, настроят при следующем входе.' },
    },
  },
  backup: {
    title: 'Резервные копии по расписанию',
    help: 'Резервные копии встроенного хранилища SQLite, которые делает сам сервис (с MongoDB не используются). Мастер-ключ не копируется: один раз сохраните файл master-key отдельно.',
    fields: {
      enabled: { label: 'Включено', help: 'Делать копию каждый интервал.' },
      directory: { label: 'Каталог', help: 'Абсолютный путь существующего каталога на сервере SAC, доступного сервису на запись.' },
      interval_hours: { label: 'Каждые (часов)', help: 'Часов между двумя копиями, 1–168.' },
      keep: { label: 'Хранить', help: 'Сколько самых новых копий хранить; старые удаляются.' },
    },
  },
  geoip: {
    title: 'Обогащение адресов',
    help: 'Страна и автономная система (ASN) адреса источника каждого события, определяемые офлайн при поступлении события. Без пути используются базы, поставляемые с SAC; испорченный или отсутствующий файл выключает обогащение (страница здоровья говорит почему) и никогда не останавливает приём.',
    fields: {
      enabled: { label: 'Включено', help: 'Определять страну и ASN адресов источников новых событий.' },
      country_db_path: { label: 'База стран', help: 'Абсолютный путь файла MMDB стран на сервере SAC; пусто — поставляемая база. Сохранение перечитывает её.' },
      asn_db_path: { label: 'База ASN', help: 'Абсолютный путь файла MMDB с ASN на сервере SAC; пусто — поставляемая таблица. Сохранение перечитывает её.' },
    },
  },
  approvals: {
    title: 'Подтверждение вторым лицом',
    help: 'Действия, которым нужен второй человек: действие становится запросом (с причиной), который одобряет или отклоняет другой пользователь, имеющий право его выполнить; свой запрос одобрить нельзя. Одобряющие видят счётчик в меню и получают сообщение в Telegram с кнопками «Одобрить»/«Отклонить», если их аккаунт привязан.',
    fields: {
      require: { label: 'Требуют подтверждения', help: 'session_logoff: завершение сеанса на Windows-хосте; agent_update: запуск обновления агента одного хоста; rollout_start: запуск поэтапного развёртывания; host_delete: удаление хоста; fleet_ban: блокировка адреса на Linux-хостах (автоматическая блокировка тогда остаётся предложением).' },
      expiry_minutes: { label: 'Истекает через (минут)', help: 'Запрос, не решённый за это время, истекает и ничего не выполняет, 1–1440.' },
    },
  },
  ssh_bans: {
    title: 'Блокировки SSH по всему парку',
    help: 'Блокировка атакующего адреса на всех Linux-хостах (ipset ssh_monitor_ban / ssh_monitor_ban_v6 через учётную запись администратора SSH). Собственные адреса SAC и адреса, с которых входили пользователи консоли, не блокируются никогда.',
    fields: {
      propagation: { label: 'Когда хост блокирует адрес', help: 'Когда хост сообщает ssh.ip.banned или ssh.bruteforce.mass: ничего не делать, предложить блокировку по парку (применяется одной кнопкой) или применить сразу.' },
      default_duration_s: { label: 'Срок по умолчанию (с)', help: 'Сколько секунд длится блокировка, если срок не указан, 60–2147483.' },
      repeat_window_days: { label: 'Окно повторов (дней)', help: 'Срок удваивается за каждую прежнюю блокировку того же адреса за столько дней.' },
      max_duration_s: { label: 'Самая долгая блокировка (с)', help: 'Срок для повторных нарушителей не больше стольких секунд.' },
      concurrency: { label: 'Хостов одновременно', help: 'Сколько хостов меняется по SSH одновременно, 1–64.' },
      never_ban: { label: 'Никогда не блокировать', help: 'Адреса и диапазоны CIDR, которые не блокируются никогда (сети администраторов, партнёры, мониторинг), по одному в строке.' },
      signin_days: { label: 'Защищать адреса входа (дней)', help: 'Адреса, с которых пользователи консоли входили за столько дней, не блокируются; 0 — выключено.' },
    },
  },
  git_repo: {
    product: { label: 'Продукт', help: 'Продукт агента в репозитории, например ssh-monitor.' },
    url: { label: 'Адрес репозитория', help: 'https://… или путь на этом сервере.' },
    branch: { label: 'Ветка', help: 'Пусто — ветка по умолчанию.' },
    token: { label: 'Токен доступа', help: 'Для закрытых репозиториев по https.' },
    version_from: { label: 'Версия из', help: 'Самый новый тег релиза или файл версии на ветке.' },
    version_file: { label: 'Файл версии', help: 'Путь к файлу версии; пусто — обычный файл продукта.' },
  },
  escalation_step: {
    interval_minutes: { label: 'Повторять каждые, мин', help: 'Как часто неподтверждённая проблема отправляется снова.' },
    max_repeats: { label: 'Повторов', help: 'Сколько раз до последнего шага.' },
    final_channels: { label: 'Последний шаг: ещё каналы', help: 'Каналы, добавляемые на последнем шаге.' },
    final_emails: { label: 'Последний шаг: ещё почта', help: 'Адреса для письма на последнем шаге, по одному в строке.' },
  },
};

export const SETTINGS_HELP: Record<HelpLanguage, SettingsHelp> = { en, ru };

/** The settings table of the README: one row per category, from the English texts above. */
export function settingsReadmeTable(): string {
  const rows = (Object.keys(SETTINGS_HELP.en) as (keyof SettingsHelp)[])
    .filter((c): c is SettingsCategory => c !== 'git_repo' && c !== 'escalation_step')
    .map((c) => {
      const h = SETTINGS_HELP.en[c] as CategoryHelp<SettingsCategory>;
      const fields = Object.values(h.fields as Record<string, FieldHelp>).map((f) => f.label);
      return `| ${h.title} (\`${c}\`) | ${h.help} Fields: ${fields.join('; ')}. |`;
    });
  return ['| category | what it sets |', '|---|---|', ...rows].join('\n');
}
