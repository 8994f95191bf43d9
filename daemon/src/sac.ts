import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import path from 'node:path';
import type { Express } from 'express';
import type { Logger } from 'pino';
import { CommandsService, createActionsRoutes, RemoteActionsService } from './actions/index.js';
import { backupOnThread, checkBackupSettings, ScheduledBackups } from './backup/index.js';
import { ApiKeysAdmin, ApiKeyService, KeyAgents, KeyBindingGuard } from './apikeys/index.js';
import { ApprovalPolicy, ApprovalsService } from './approvals/index.js';
import { AuditService } from './audit/index.js';
import { BansService, checkBansSettings, subscribeBans } from './bans/index.js';
import { verifiedTarget } from './action-target.js';
import { AuthService, loadJwtSecret, SessionTokens, TotpService } from './auth/index.js';
import { Bus } from './bus.js';
import { systemClock, type Clock } from './clock.js';
import { FEED_KEEP_MS, FEED_PRUNE_INTERVAL_MS, FeedChannel, followClusterChanges } from './cluster/index.js';
import type { Config } from './config.js';
import { storedCorrelationSettings } from './correlation/index.js';
import { LoginsService } from './logins/index.js';
import { DashboardsService } from './dashboards/index.js';
import { SuggestService } from './suggest/index.js';
import { EscalationService } from './escalation/index.js';
import { MaintenanceService } from './maintenance/index.js';
import { GroupsService } from './groups/index.js';
import { createTelegramWebhookRoutes, setWebhook, TelegramService, telegramBotApi } from './telegram/index.js';
import { randomBase62 } from './random.js';
import { sshShell, winRmShell } from './remote-shell/index.js';
import { errorSummary } from './errors.js';
import { Facts } from './facts.js';
import { ensurePrivateDir, writeSecretFile } from './secret-files.js';
import { EventsService } from './events/index.js';
import { GeoService, shippedGeoDatabases } from './geo/index.js';
import { HostsService, hostNotFound, SilenceScanner } from './hosts/index.js';
import type { LogoffAnswer } from '../../shared/src/index.js';
import {
  appOperations,
  createApp,
  createAppRouter,
  createHttpServer,
  createIngestHandler,
  createWebRoutes,
  defaultWebDir,
  hostAllowList,
  type AppOperations,
  type AppRouter,
  type ReadServices,
} from './server/index.js';
import {
  applyBatchEffects,
  createIngestPipeline,
  EnrichingCommitter,
  IngestService,
  IngestThread,
  LocalCommitter,
  MeasuredCommitter,
  type BatchCommitter,
  type BatchContext,
  type BatchEffects,
} from './ingest/index.js';
import { JobRunner, type Fence } from './jobs/index.js';
import { Metrics } from './metrics.js';
import { CODE_HISTORY_MS, createMobileRoutes, DEFAULT_MOBILE_POLICY, MobileService } from './mobile/index.js';
import { channelSenders, NotifyService, settingsNotifySource, subscribeNotify } from './notify/index.js';
import { ProblemsService } from './problems/index.js';
import { ReportsService } from './reports/index.js';
import { RetentionService } from './retention/index.js';
import { loadMasterKey, SecretBox, SettingsService } from './settings/index.js';
import { openStore, type Store } from './store/index.js';
import { createStreamRoutes, DEFAULT_STREAM_OPTIONS, StreamHub, StreamTickets, subscribeStream, type StreamAccess } from './stream/index.js';
import { UsersService } from './users/index.js';
import { RolloutsService } from './rollouts/index.js';
import { AgentUpdatesService, AgentVersionsService, createAgentUpdatesRoutes, gitReleaseSource, subscribeAgentUpdates } from './updates/index.js';
import { parseTrustedProxies } from './trusted-proxies.js';
import { SAC_VERSION } from './version.js';

export interface RunningSac {
  url: string;
  /** The Express app and the tRPC router (route enumeration in the RBAC matrix test). */
  app: Express;
  trpcRouter: AppRouter;
  /** The console operations behind both (roles and shapes the RBAC and same-shape tests check). */
  operations: AppOperations;
  port: number;
  store: Store;
  ingest: IngestService;
  /** Events, hosts, problems and dashboard services (the read API and problem handling). */
  read: ReadServices;
  jobs: JobRunner;
  retention: RetentionService;
  notify: NotifyService;
  reports: ReportsService;
  /** What clients and the other daemons are told (stream messages, cache changes). */
  bus: Bus;
  /** What the daemon did (domain facts): features react to these. */
  facts: Facts;
  apiKeys: ApiKeyService;
  /** Set when this start generated the bootstrap agent API key (first start without one). */
  generatedApiKey: string | null;
  apiKeyFile: string;
  auth: AuthService;
  users: UsersService;
  audit: AuditService;
  settings: SettingsService;
  stream: StreamHub;
  /** The host silence scan (a job). */
  silence: SilenceScanner;
  commands: CommandsService;
  actions: RemoteActionsService;
  mobile: MobileService;
  /** Set when this start created the first admin with a generated password (shown once). */
  generatedAdminPassword: string | null;
  adminPasswordFile: string;
  close(): Promise<void>;
}

const TELEGRAM_WEBHOOK_SECRET_SETTING = 'internal.telegram_webhook_secret';

/** The secret token Telegram sends with webhook calls: generated once, kept encrypted, shared by daemons on one store. */
async function loadTelegramWebhookSecret(store: Store, box: SecretBox, clock: Clock): Promise<string> {
  const stored = await store.settings.insertIfAbsent({
    key: TELEGRAM_WEBHOOK_SECRET_SETTING,
    value: box.encrypt(randomBase62(48), TELEGRAM_WEBHOOK_SECRET_SETTING),
    updated_ms: clock.now(),
    updated_by: null,
  });
  return box.decrypt(stored.value, TELEGRAM_WEBHOOK_SECRET_SETTING);
}

export const BOOTSTRAP_KEY_FILE = 'bootstrap-api-key';
export const INITIAL_ADMIN_PASSWORD_FILE = 'initial-admin-password';


/**
 * Composition: opens the store, builds the services with plain constructor arguments, and
 * starts HTTP. `close()` stops accepting, drains queued events, and closes the store.
 */
export async function startSac(config: Config, opts: { logger: Logger; clock?: Clock }): Promise<RunningSac> {
  const clock = opts.clock ?? systemClock;
  const logger = opts.logger;
  const startedMs = clock.now();
  // The data dir holds the database, the master key and first-start secrets: owner only.
  ensurePrivateDir(config.dataDir);
  const store = await openStore(config.store);

  const metrics = new Metrics();
  const bus = new Bus((err, message) => logger.error({ err: errorSummary(err), type: message.type }, 'bus listener failed'));
  const facts = new Facts((err, type) => logger.error({ err: errorSummary(err), type }, 'facts listener failed'));
  const apiKeys = new ApiKeyService(store.apiKeys, clock);
  const keyAgents = new KeyAgents(store.apiKeys, store.hosts, clock);
  const apiKeyFile = path.join(config.dataDir, BOOTSTRAP_KEY_FILE);
  const { generated } = await apiKeys.ensureBootstrapKey(config.bootstrapApiKey);
  if (generated) writeSecretFile(apiKeyFile, `${generated}\n`);

  const secretBox = new SecretBox(loadMasterKey(config.masterKey, config.dataDir).key);
  const audit = new AuditService(store.audit, clock, logger.child({ scope: 'audit' }));
  const users = new UsersService(store.users, audit, clock, store.loginThrottle);
  const adminPasswordFile = path.join(config.dataDir, INITIAL_ADMIN_PASSWORD_FILE);
  const { generated: generatedAdminPassword } = await users.ensureFirstAdmin(config.auth.adminUsername, config.auth.adminPassword);
  if (generatedAdminPassword) writeSecretFile(adminPasswordFile, `${generatedAdminPassword}\n`);
  const jwtSecret = await loadJwtSecret(config.auth.jwtSecret, store.settings, secretBox, clock);
  const settings = new SettingsService(store.settings, secretBox, clock, audit);
  settings.registerCheck('backup', (value) => checkBackupSettings(value, config.store.kind));
  const totp = new TotpService({ repo: store.totp, box: secretBox, settings, clock, audit, ticketSecret: jwtSecret });
  const sessionTokens = new SessionTokens(jwtSecret, config.auth.sessionTtlMs, clock);
  const auth = new AuthService({
    users: store.users,
    throttle: store.loginThrottle,
    tokens: sessionTokens,
    // Device-bound tokens are checked against the device on every request (mobile is built below).
    devices: { accepts: (device, userId) => mobile.accepts(device, userId) },
    sessions: store.sessions,
    audit,
    facts,
    clock,
    policy: config.auth,
    logger: logger.child({ scope: 'auth' }),
    secondFactor: totp,
  });
  // Several daemons on one MongoDB store: the stream and the caches follow the cluster feed.
  const feed = store.feed
    ? new FeedChannel({ subscribeBus: (l) => bus.subscribe(l), feed: store.feed, clock, logger: logger.child({ scope: 'feed' }) })
    : null;
  if (feed) await feed.start();
  const groups = new GroupsService(store.groups, store.hosts, store.users, clock, audit);
  const streamAccess: StreamAccess = async (user) => ((await store.users.byId(user.id))?.active === true ? { scope: await groups.scopeOf(user) } : null);
  const stream = new StreamHub(feed ?? bus, clock, logger.child({ scope: 'stream' }), streamAccess, {
    ...DEFAULT_STREAM_OPTIONS,
    ...config.stream,
  });
  stream.start();
  const streamTickets = new StreamTickets(store.streamTickets, store.users, clock);
  apiKeys.onRevoke(() => bus.publish({ type: 'cluster.changed', data: { scope: 'api_keys' } }));
  settings.onChange((category, elsewhere) => {
    if (!elsewhere) bus.publish({ type: 'cluster.changed', data: { scope: 'settings', category } });
  });
  auth.onSignOut((sessionId) => stream.dropSession(sessionId));

  const apiKeysAdmin = new ApiKeysAdmin(apiKeys, audit);
  const maintenance = new MaintenanceService(store.maintenance, settings, clock, audit);

  const correlationSettings = storedCorrelationSettings(settings, config.correlation);
  subscribeStream(facts, bus, correlationSettings);
  const agentVersions = new AgentVersionsService({
    repo: store.agentVersions,
    git: gitReleaseSource,
    gitRepos: () => settings.get('git_repos'),
    mirrorsDir: path.join(config.dataDir, 'git-mirrors'),
    clock,
    audit,
    logger: logger.child({ scope: 'agent-versions' }),
  });
  const approvalPolicy = new ApprovalPolicy(() => settings.get('approvals'));
  const groupHosts = (groupId: string) => groups.hostsOf(groupId);
  const hosts = new HostsService(store, clock, logger.child({ scope: 'hosts' }), correlationSettings, audit, groupHosts, approvalPolicy, () => agentVersions.latest());
  const silence = new SilenceScanner(store, facts, clock, logger.child({ scope: 'hosts' }), correlationSettings, maintenance);
  const events = new EventsService(store, correlationSettings, (hostname) => hosts.resolveIds(hostname), groupHosts);
  const geo = new GeoService({ settings: () => settings.get('geoip'), shipped: shippedGeoDatabases(), logger: logger.child({ scope: 'geo' }) });
  await geo.reload();
  settings.onChange((category) => {
    if (category === 'geoip') void geo.reload();
  });
  const read: ReadServices = {
    events,
    hosts,
    problems: new ProblemsService(store, facts, clock, correlationSettings, audit, hosts, events, groupHosts),
    dashboards: new DashboardsService(store, clock, correlationSettings, hosts, events, () => geo.status()),
    suggest: new SuggestService(store),
    logins: new LoginsService(store, clock, correlationSettings, audit),
  };
  const windowsAdminEnv = config.actions.windowsAdmin;
  settings.registerEnvDefaults('windows_admin', () => ({
    ...(windowsAdminEnv.username ? { username: windowsAdminEnv.username } : {}),
    ...(windowsAdminEnv.password ? { password: windowsAdminEnv.password } : {}),
  }));
  const commands = new CommandsService(store, bus, clock, audit, logger.child({ scope: 'commands' }), config.actions);
  const windowsShell = winRmShell(() => settings.get('windows_admin'));
  const linuxShell = sshShell(() => settings.get('ssh_admin'));
  const actions = new RemoteActionsService({
    store,
    commands,
    audit,
    clock,
    logger: logger.child({ scope: 'actions' }),
    windows: windowsShell,
    linux: linuxShell,
    approvals: approvalPolicy,
    perMinute: config.actions.perMinute,
    timeoutMs: config.actions.timeoutMs,
  });
  const jobs = new JobRunner(store.leases, clock, logger.child({ scope: 'jobs' }), randomUUID(), {
    run: (job) => metrics.jobRun(job),
    failed: (job) => metrics.jobFailed(job),
  });
  const retention = new RetentionService({
    store,
    clock,
    logger: logger.child({ scope: 'retention' }),
    options: {
      auditMs: config.retention.auditMs,
      eventMs: config.retention.eventMs,
      loginWindowMs: Math.max(config.auth.windowMs, config.auth.lockMs),
      enrollmentCodeHistoryMs: CODE_HISTORY_MS,
    },
  });
  const agentUpdates = new AgentUpdatesService({
    repo: store.agentUpdates,
    store,
    versions: agentVersions,
    git: gitReleaseSource,
    settings: () => settings.get('agent_updates'),
    approvals: approvalPolicy,
    // Pins live with the rollouts, which start their jobs through this service.
    pinOf: (host): Promise<string | null> => rollouts.pinOf(host),
    windows: windowsShell,
    linux: linuxShell,
    publicUrl: config.publicUrl,
    bundlesDir: path.join(config.dataDir, 'agent-bundles'),
    clock,
    audit,
    publish: (message) => bus.publish(message),
    logger: logger.child({ scope: 'agent-updates' }),
  });
  subscribeAgentUpdates(facts, agentUpdates, logger.child({ scope: 'agent-updates' }));
  const rollouts: RolloutsService = new RolloutsService({
    repo: store.rollouts,
    store,
    jobs: store.agentUpdates,
    updates: agentUpdates,
    versions: agentVersions,
    groups,
    approvals: approvalPolicy,
    clock,
    audit,
    publish: (message) => bus.publish(message),
    logger: logger.child({ scope: 'rollouts' }),
  });
  const hostOrThrow = async (id: string) => {
    const host = await store.hosts.byId(id);
    if (!host) throw hostNotFound(id);
    return host;
  };
  const logoffDone = (answer: { body: LogoffAnswer }) =>
    answer.body.path === 'winrm' ? `logged off over WinRM at ${answer.body.target}` : `logoff queued to the host's agent (command ${answer.body.command.id})`;
  const approvals = new ApprovalsService({
    repo: store.approvals,
    users: store.users,
    settings: () => settings.get('approvals'),
    clock,
    audit,
    logger: logger.child({ scope: 'approvals' }),
    async plan(request) {
      const one = (h: { id: string; hostname: string }) => ({ host_ids: [h.id], hostnames: [h.hostname] });
      switch (request.kind) {
        case 'host_logoff':
          return one(await actions.logoffHost({ host_id: request.host_id }));
        case 'event_logoff':
          return one(await actions.logoffHost({ event_id: request.event_id }));
        case 'rollout_start': {
          const { kind: _kind, ...start } = request;
          const { hosts: moved } = await rollouts.plan(start);
          return { host_ids: moved.map((h) => h.id), hostnames: moved.map((h) => h.hostname) };
        }
        case 'host_update':
        case 'host_delete':
          return one(await hostOrThrow(request.host_id));
        case 'ban_create':
        case 'ban_apply': {
          const { kind: _kind, ...create } = request;
          const plan = await bans.plan(request.kind === 'ban_apply' ? { apply: request.id } : { create: create as Parameters<typeof bans.create>[0] });
          return { host_ids: plan.hosts.map((h) => h.id), hostnames: plan.hosts.map((h) => h.hostname), subject: plan.address };
        }
      }
    },
    async run(request, actor, approved) {
      switch (request.kind) {
        case 'host_logoff':
          return logoffDone(await actions.logoff(request.host_id, request.session_id, actor, approved));
        case 'event_logoff':
          return logoffDone(await actions.eventLogoff(request.event_id, request.session_id, actor, approved));
        case 'host_update': {
          const { job, created } = await agentUpdates.startForHost(request.host_id, actor, approved);
          return created ? `update to ${job.target_version} started` : `an update to ${job.target_version} was already under way`;
        }
        case 'rollout_start': {
          const { kind: _kind, ...start } = request;
          const rollout = await rollouts.start(start, actor, approved);
          return `rollout of ${rollout.product} ${rollout.target_version} started on ${rollout.counts.hosts} hosts`;
        }
        case 'host_delete':
          await hosts.remove(request.host_id, actor, approved);
          return 'host deleted';
        case 'ban_create':
        case 'ban_apply': {
          const { kind: _kind, ...create } = request;
          const ban = request.kind === 'ban_apply' ? await bans.apply(request.id, actor, approved) : await bans.create(create as Parameters<typeof bans.create>[0], actor, approved);
          const applied = ban.hosts.filter((h) => h.outcome === 'applied').length;
          return `${ban.address} banned on ${applied} of ${ban.hosts.length} hosts`;
        }
      }
    },
  });
  settings.registerCheck('ssh_bans', checkBansSettings);
  const bans = new BansService({
    store,
    settings: () => settings.get('ssh_bans'),
    linux: linuxShell,
    target: (host) => verifiedTarget(store, host),
    ownAddresses: () => [config.host, ...Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address))],
    audit,
    clock,
    logger: logger.child({ scope: 'bans' }),
    timeoutMs: config.actions.timeoutMs,
    approvals: approvalPolicy,
  });
  subscribeBans(facts, bans, logger.child({ scope: 'bans' }));
  jobs.start([
    { name: 'host_silence', intervalMs: config.correlation.silenceScanMs, run: (fence) => silence.scan(fence) },
    // Each repository is read when its `refresh_minutes` have passed; the tick only looks.
    { name: 'agent_versions', intervalMs: config.updates.versionCheckMs, run: (fence) => agentVersions.refreshDue(fence) },
    { name: 'agent_update_fallback', intervalMs: config.updates.versionCheckMs, run: (fence) => agentUpdates.fallbackDue(fence) },
    { name: 'rollouts', intervalMs: config.updates.versionCheckMs, run: (fence) => rollouts.advanceDue(fence) },
    { name: 'command_expiry', intervalMs: 30_000, run: (fence) => commands.expireDue(fence) },
    { name: 'approval_expiry', intervalMs: config.approvals.expiryCheckMs, run: (fence) => approvals.expireDue(fence) },
    { name: 'retention', intervalMs: config.retention.intervalMs, run: async (fence) => void (await retention.run(fence)) },
    { name: 'ssh_ban_expiry', intervalMs: config.bans.expiryCheckMs, run: async (fence) => void (await bans.expireDue(fence)) },
  ]);
  const notifySource = settingsNotifySource(settings, config.notify);
  const notify = new NotifyService({
    store,
    senders: channelSenders(config.push),
    clock,
    logger: logger.child({ scope: 'notify' }),
    metrics,
    source: notifySource,
    sealer: secretBox,
    push: config.push,
    options: {
      maxAttempts: config.notify.delivery.maxAttempts,
      baseDelayMs: config.notify.delivery.retryBaseMs,
      maxDelayMs: config.notify.delivery.retryMaxMs,
      pollMs: config.notify.delivery.pollMs,
      timeoutMs: config.notify.delivery.timeoutMs,
      retentionMs: config.notify.delivery.retentionMs,
    },
    windows: () => maintenance.current(),
    audit,
  });
  await notify.start();
  subscribeNotify(facts, notify);
  maintenance.onChange(() => notify.refresh());
  const escalation = new EscalationService({ store, settings, notify, clock, logger: logger.child({ scope: 'escalation' }) });
  const telegram = new TelegramService({
    telegram: store.telegram,
    users: store.users,
    settingsRepo: store.settings,
    settings,
    problems: read.problems,
    approvals,
    api: telegramBotApi,
    audit,
    clock,
    logger: logger.child({ scope: 'telegram' }),
    pollTimeoutS: config.telegramBot.pollTimeoutS,
  });
  approvals.onRequested((request, approvers) => telegram.askApproval(request, approvers));
  // With a public https URL Telegram pushes button presses to us; otherwise the leader long-polls.
  const webhookUrl = config.publicUrl?.startsWith('https://') ? `${config.publicUrl}/api/v1/telegram/webhook` : null;
  const webhookSecret = webhookUrl ? await loadTelegramWebhookSecret(store, secretBox, clock) : null;
  jobs.start([
    { name: 'escalation', intervalMs: config.escalation.checkMs, run: (fence) => escalation.run(fence) },
    ...(webhookUrl ? [] : [{ name: 'telegram_updates', intervalMs: 1000, run: (fence: Fence) => telegram.pollOnce(fence) }]),
  ]);
  if (webhookUrl && webhookSecret) {
    const t = await settings.get('telegram');
    if (t.bot_token) {
      await setWebhook({ apiBase: t.api_base, botToken: t.bot_token, timeoutMs: 10_000 }, webhookUrl, webhookSecret).catch((err: unknown) =>
        logger.warn({ err: errorSummary(err) }, 'telegram webhook not registered'),
      );
    }
  }
  const mobile = new MobileService({
    devices: store.devices,
    users: store.users,
    tokens: sessionTokens,
    audit,
    push: {
      register: async (input, userId, label) => (await notify.registerPushSubscription({ ...input, label }, userId)).id,
      remove: async (id) => {
        await store.push.remove(id);
        await notify.refresh();
      },
    },
    clock,
    policy: { ...DEFAULT_MOBILE_POLICY, addressMaxFailures: config.auth.addressMaxFailures, windowMs: config.auth.windowMs },
    logger: logger.child({ scope: 'mobile' }),
    // The user's other streams end too and reconnect; the device's cannot (its token is refused).
    onDeviceChange: (userId) => userChanged(userId, true),
  });
  /**
   * After any change to a user or their devices, here (`here`: the other daemons are told) or on
   * another daemon: cached sessions dropped, open streams ended, a removed user's push subscriptions removed.
   */
  function userChanged(userId: string, here: boolean): void {
    auth.invalidate();
    stream.dropUser(userId);
    if (here) bus.publish({ type: 'cluster.changed', data: { scope: 'user', user_id: userId } });
    void notify.userChanged(userId).catch((err: unknown) => logger.error({ err: errorSummary(err), user: userId }, 'push subscriptions of a removed user not removed'));
  }
  users.onChange((userId) => userChanged(userId, true));
  if (feed && store.feed) {
    const feedRepo = store.feed;
    followClusterChanges(feed, {
      settings: (category) => settings.changedElsewhere(category),
      apiKeys: () => apiKeys.invalidate(),
      user: (userId) => userChanged(userId, false),
    });
    jobs.start([
      {
        name: 'feed_prune',
        intervalMs: FEED_PRUNE_INTERVAL_MS,
        run: async (fence) => {
          // Pruning removes what is older than a cutoff: harmless twice, fenced so a replaced run stops.
          await fence.check();
          await feedRepo.prune(clock.now() - FEED_KEEP_MS);
        },
      },
    ]);
  }
  // One ingest pipeline (createIngestPipeline): on its own thread for a file store (ingest-thread.ts),
  // on this one for MongoDB and :memory:. Either way a batch gets its context from here and its
  // effects are applied here.
  const batchContext = async (): Promise<BatchContext> => ({ now_ms: clock.now(), correlation: await correlationSettings(), notify: notify.eventPlan() });
  const applyEffects = (effects: BatchEffects) =>
    applyBatchEffects(effects, {
      facts,
      logger,
      onNotificationsRecorded: notify.notificationsRecorded,
      onNotificationsLost: notify.notificationsLost,
    });
  // Source addresses are enriched before each batch is committed (outside the measured commit).
  const committer: BatchCommitter = new EnrichingCommitter(new MeasuredCommitter(
    config.store.kind === 'sqlite' && config.store.file !== ':memory:'
      ? await IngestThread.start({
          file: config.store.file,
          clock,
          logger,
          context: batchContext,
          apply: applyEffects,
          onRestart: () => metrics.ingestThreadRestarted(),
        })
      : new LocalCommitter(createIngestPipeline(store), batchContext, applyEffects),
    { committed: (events, seconds) => metrics.batchCommitted(events, seconds), storeFailed: () => metrics.storeError('ingest_commit') },
  ), (items) => geo.enrich(items));
  const ingest = new IngestService(committer, clock, logger.child({ scope: 'ingest' }), config.ingest);
  const reports = new ReportsService({
    store,
    clock,
    logger: logger.child({ scope: 'reports' }),
    notify,
    source: notifySource,
    audit,
  });
  jobs.start([{ name: 'daily_report', intervalMs: config.notify.report.checkMs, run: async (fence) => void (await reports.runIfDue(fence)) }]);
  if (config.store.kind === 'sqlite') {
    const backups = new ScheduledBackups({ settings, dataDir: config.dataDir, clock, logger: logger.child({ scope: 'backup' }), backup: backupOnThread });
    jobs.start([{ name: 'backup', intervalMs: config.backup.checkMs, run: async (fence) => void (await backups.runIfDue(fence)) }]);
  }

  const routerDeps = {
    storeKind: store.kind,
    read,
    notify,
    reports,
    auth,
    users,
    apiKeys: apiKeysAdmin,
    settings,
    audit,
    agentVersions,
    agentUpdates,
    maintenance,
    groups,
    totp,
    telegram,
    actions,
    commands,
    mobile,
    streamTickets,
    approvals,
    bans,
    rollouts,
  };
  const operations = appOperations(routerDeps);
  const trpcRouter = createAppRouter(routerDeps, operations);
  const app = createApp({
    store,
    metrics,
    logger: logger.child({ scope: 'http' }),
    version: SAC_VERSION,
    startedMs,
    clock,
    ingestProblem: () => ingest.problem,
    enrichment: () => geo.status(),
    jobs: () => jobs.jobStates(),
    daemonMetrics: () => ({ ingestQueued: ingest.queued, streamClients: stream.clientCount, streamDropped: stream.droppedCount }),
    authenticator: auth,
    trpcRouter,
    operations,
    metricsAccess: config.http.metricsAccess,
    metricsToken: config.http.metricsToken,
    // The console first: it answers only browser navigations and its own files (see web.routes.ts).
    routes: [
      createWebRoutes({ webDir: config.webDir ?? defaultWebDir(), basePath: config.basePath }),
      createStreamRoutes(stream, streamTickets, auth, (user) => groups.scopeOf(user)),
      createAgentUpdatesRoutes(agentUpdates, { apiKeys, keyAgents, publicUrl: config.publicUrl, basePath: config.basePath }),
      ...(webhookSecret ? [createTelegramWebhookRoutes(telegram, webhookSecret)] : []),
      createActionsRoutes({ commands, apiKeys, keyAgents, logger: logger.child({ scope: 'actions' }) }),
      createMobileRoutes(mobile, auth, config.basePath),
    ],
  });
  const server = createHttpServer({
    app,
    basePath: config.basePath,
    allowHost: hostAllowList(config.http.allowedHosts, config.host),
    trustedProxies: parseTrustedProxies(config.http.trustedProxies),
    ingest: createIngestHandler({ apiKeys, keyBinding: new KeyBindingGuard(audit, clock, store.hosts), keyAgents, ingest, metrics, logger: logger.child({ scope: 'ingest' }) }),
    timeRequest: (req, ingestRoute) => metrics.requestStarted(req, ingestRoute),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  logger.info({ port, host: config.host, store: store.kind, version: SAC_VERSION }, 'SAC listening');

  let closing: Promise<void> | null = null;
  return {
    url: `http://${host}:${port}`,
    app,
    trpcRouter,
    operations,
    port,
    store,
    ingest,
    read,
    jobs,
    retention,
    notify,
    reports,
    bus,
    facts,
    apiKeys,
    generatedApiKey: generated,
    apiKeyFile,
    auth,
    users,
    audit,
    settings,
    stream,
    silence,
    commands,
    actions,
    mobile,
    generatedAdminPassword,
    adminPasswordFile,
    close() {
      closing ??= (async () => {
        // Open streams would keep server.close() waiting forever.
        stream.stop();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
        await ingest.drain();
        await committer.close();
        await feed?.stop();
        telegram.stop();
        await jobs.stop();
        await notify.stop();
        await apiKeys.flushTouches();
        await store.close();
      })();
      return closing;
    },
  };
}
