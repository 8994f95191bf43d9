import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/**
 * The daemon's environment, one zod schema. Each key's description is its documentation
 * (README's configuration table mirrors it). Secret keys may instead be given as `<KEY>_FILE`,
 * a path whose contents (without the trailing newline) are the value.
 */
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
  SAC_MONGODB_DB: z.string().min(1).max(63).default('sac').describe('MongoDB database name.'),
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
});

/** Keys whose values are secrets: accepted as `<KEY>_FILE` too, never logged. */
export const SECRET_KEYS = ['SAC_MONGODB_URI', 'SAC_BOOTSTRAP_API_KEY'] as const;

export type StoreConfig = { kind: 'sqlite'; file: string } | { kind: 'mongodb'; uri: string; dbName: string };

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  basePath: string;
  logLevel: z.infer<typeof EnvSchema>['SAC_LOG_LEVEL'];
  store: StoreConfig;
  bootstrapApiKey?: string;
  ingest: { batchMax: number; queueLimit: number };
  /** Console web build folder; undefined = the repository's desktop/renderer/dist. */
  webDir?: string;
}

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
  const parsed = EnvSchema.safeParse(resolved);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push(`${issue.path.join('.')}: ${issue.message}`);
  }
  if (problems.length > 0 || !parsed.success) return { ok: false, problems };

  const e = parsed.data;
  const dataDir = path.resolve(e.SAC_DATA_DIR);
  return {
    ok: true,
    config: {
      host: e.SAC_HOST,
      port: e.SAC_PORT,
      dataDir,
      basePath: e.SAC_BASE_PATH,
      logLevel: e.SAC_LOG_LEVEL,
      store: e.SAC_MONGODB_URI
        ? { kind: 'mongodb', uri: e.SAC_MONGODB_URI, dbName: e.SAC_MONGODB_DB }
        : { kind: 'sqlite', file: path.join(dataDir, 'sac.sqlite') },
      bootstrapApiKey: e.SAC_BOOTSTRAP_API_KEY,
      ingest: { batchMax: e.SAC_INGEST_BATCH_MAX, queueLimit: e.SAC_INGEST_QUEUE_LIMIT },
      webDir: e.SAC_WEB_DIR === undefined ? undefined : path.resolve(e.SAC_WEB_DIR),
    },
  };
}
