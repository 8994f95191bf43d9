import {
  SETTINGS_CATEGORIES,
  SETTINGS_SCHEMAS,
  SETTINGS_SECRET_PATHS,
  toValidationIssues,
  type SettingsCategory,
  type SettingsValue,
  type SettingsView,
  type ValidationIssue,
} from '../../../shared/src/index.js';
import type { Actor, AuditService } from '../audit/index.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { SettingsRepo, StoredSetting } from '../store/index.js';
import type { SecretBox } from './secret-box.js';
import { mapSecrets, maskSecrets, resolveKeepMarkers, secretsToResend, secretsUnguardedByReset } from './settings.rules.js';

/** How long an effective value is reused; a change through this daemon takes effect at once. */
const CACHE_TTL_MS = 5_000;

type Fields = Record<string, unknown>;
type EnvDefaults<C extends SettingsCategory> = () => Partial<SettingsValue<C>>;
/** `elsewhere`: the change was made through another daemon on the same store (seen on the cluster feed). */
/** A check of a category's new value that needs the daemon's machine (a directory it must write): the problems, none when valid. */
type ValueCheck<C extends SettingsCategory> = (value: SettingsValue<C>) => ValidationIssue[] | Promise<ValidationIssue[]>;
type ChangeListener = (category: SettingsCategory, elsewhere: boolean) => void;

const storageKey = (category: SettingsCategory) => `settings.${category}`;
const secretContext = (category: SettingsCategory, path: string) => `settings.${category}:${path}`;

/** A change that would send a stored secret somewhere chosen without it: the fields to give again. */
function secretRequired(category: SettingsCategory, fields: string[], message: string): AppError {
  return new AppError('settings/secret_required', `Give ${fields.join(', ')} again: the ${category} change moves where it is sent`, {
    details: fields.map((path) => ({ path, message })),
  });
}

function isCategory(value: string): value is SettingsCategory {
  return (SETTINGS_CATEGORIES as string[]).includes(value);
}

/**
 * The settings store. Effective value of a category = schema defaults, overridden by the
 * environment defaults its owning feature registered, overridden field by field by what admins
 * stored. Secret fields are AES-256-GCM encrypted at rest, write-only through the API and never
 * logged; the audit log records which fields changed, never values.
 */
export class SettingsService {
  private readonly cache = new Map<SettingsCategory, { value: Fields; until: number }>();
  private readonly envDefaults = new Map<SettingsCategory, () => Fields>();
  private readonly listeners = new Set<ChangeListener>();
  private readonly checks = new Map<SettingsCategory, { check: ValueCheck<SettingsCategory>; code: string }>();

  constructor(
    private readonly repo: SettingsRepo,
    private readonly box: SecretBox,
    private readonly clock: Clock,
    private readonly audit: AuditService,
  ) {}

  /** The feature owning a category's `SAC_*` keys supplies its environment fallback (at composition). */
  registerEnvDefaults<C extends SettingsCategory>(category: C, defaults: EnvDefaults<C>): void {
    // Checked now, so a mismatch between a feature's env keys and the category schema stops the
    // start-up with a clear message instead of being replaced by schema defaults later.
    const checked = SETTINGS_SCHEMAS[category].safeParse(defaults());
    if (!checked.success) {
      const problems = toValidationIssues(checked.error).map((i) => `${i.path}: ${i.message}`);
      throw new AppError('settings/invalid_env_defaults', `Environment values for settings ${category} are invalid: ${problems.join('; ')}`, {
        kind: 'unexpected',
      });
    }
    this.envDefaults.set(category, defaults as () => Fields);
    this.cache.delete(category);
  }

  /**
   * The feature owning a category adds the checks its schema cannot make (at composition); run before
   * a value is stored. A refused value throws `code` (an error-map row) naming the fields in its message.
   */
  registerCheck<C extends SettingsCategory>(category: C, check: ValueCheck<C>, code = 'settings/invalid'): void {
    this.checks.set(category, { check: check as unknown as ValueCheck<SettingsCategory>, code });
  }

  /** Called after a category changed through this daemon; returns the unsubscribe function. */
  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The effective, typed value with secrets in clear, for the feature that uses it. Cheap: cached briefly. */
  async get<C extends SettingsCategory>(category: C): Promise<SettingsValue<C>> {
    const now = this.clock.now();
    const cached = this.cache.get(category);
    // Copies: a caller changing what it got must not change what the next caller gets.
    if (cached && cached.until > now) return structuredClone(cached.value) as SettingsValue<C>;
    const { fields } = await this.stored(category);
    const value = this.effective(category, fields);
    this.cache.set(category, { value, until: now + CACHE_TTL_MS });
    return structuredClone(value) as SettingsValue<C>;
  }

  /** A category for admins: secrets masked as `{ set }`. */
  async view(category: string): Promise<SettingsView> {
    const cat = this.category(category);
    const { fields, record } = await this.stored(cat);
    return {
      category: cat,
      values: maskSecrets(this.effective(cat, fields), SETTINGS_SECRET_PATHS[cat]),
      stored_fields: Object.keys(fields).sort(),
      updated_at: record ? new Date(record.updated_ms).toISOString() : null,
      updated_by: record?.updated_by ?? null,
    };
  }

  async viewAll(): Promise<SettingsView[]> {
    return Promise.all(SETTINGS_CATEGORIES.map((c) => this.view(c)));
  }

  /**
   * Validates and stores the given top-level fields of a category (the others keep their value).
   * A secret sent as `{ "set": true }` keeps the stored one; `null` clears it.
   */
  async update(category: string, values: Fields, actor: Actor): Promise<SettingsView> {
    const cat = this.category(category);
    const paths = SETTINGS_SECRET_PATHS[cat];
    const { fields } = await this.stored(cat);
    const current = this.effective(cat, fields);
    const resolved = resolveKeepMarkers(values, current, paths);
    const parsed = SETTINGS_SCHEMAS[cat].safeParse({ ...current, ...resolved });
    if (!parsed.success) {
      throw new AppError('settings/invalid', `The ${cat} settings are not valid`, { details: toValidationIssues(parsed.error) });
    }
    const valid = parsed.data as Fields;
    const registered = this.checks.get(cat);
    const problems = (await registered?.check(parsed.data as SettingsValue<SettingsCategory>)) ?? [];
    if (registered && problems.length > 0) {
      const named = problems.map((i) => `${i.path} ${i.message}`).join('; ');
      throw new AppError(registered.code, `The ${cat} settings are not valid: ${named}`, { details: problems });
    }
    const resend = secretsToResend(cat, values, current, valid);
    if (resend.length > 0) {
      throw secretRequired(cat, resend, 'must be given again when its destination changes');
    }
    const changed = Object.keys(values);
    const next: Fields = { ...fields };
    for (const key of changed) next[key] = valid[key];
    await this.write(cat, next, actor);
    await this.audit.record({ action: 'settings.updated', actor, target: `settings:${cat}`, details: { fields: changed.sort() } });
    this.changed(cat);
    return this.view(cat);
  }

  /** Forgets stored fields (all when `fieldNames` is omitted), so the environment or defaults apply again. */
  async reset(category: string, fieldNames: string[] | undefined, actor: Actor): Promise<SettingsView> {
    const cat = this.category(category);
    const { fields } = await this.stored(cat);
    const removed = fieldNames ?? Object.keys(fields);
    const next = Object.fromEntries(Object.entries(fields).filter(([k]) => !removed.includes(k)));
    const unguarded = secretsUnguardedByReset(cat, removed.filter((k) => k in fields), next, this.effective(cat, next));
    if (unguarded.length > 0) {
      throw secretRequired(cat, unguarded, 'the environment value would go to a stored destination: reset that too, or give this secret');
    }
    await this.write(cat, next, actor);
    await this.audit.record({ action: 'settings.reset', actor, target: `settings:${cat}`, details: { fields: [...removed].sort() } });
    this.changed(cat);
    return this.view(cat);
  }

  private category(value: string): SettingsCategory {
    if (!isCategory(value)) throw new AppError('settings/unknown_category', `No settings category ${value}`);
    return value;
  }

  private effective(category: SettingsCategory, stored: Fields): Fields {
    const env = this.envDefaults.get(category)?.() ?? {};
    const parsed = SETTINGS_SCHEMAS[category].safeParse({ ...env, ...stored });
    if (parsed.success) return parsed.data as Fields;
    // A stored value the current schema refuses (e.g. written by an older version): fall back to
    // the environment alone, then to the defaults, rather than failing every reader.
    const envOnly = SETTINGS_SCHEMAS[category].safeParse(env);
    return (envOnly.success ? envOnly.data : SETTINGS_SCHEMAS[category].parse({})) as Fields;
  }

  /** The stored fields of a category, secrets decrypted. */
  private async stored(category: SettingsCategory): Promise<{ fields: Fields; record: StoredSetting | null }> {
    const record = await this.repo.get(storageKey(category));
    if (!record) return { fields: {}, record: null };
    const sealed = JSON.parse(record.value) as Fields;
    const fields = mapSecrets(sealed, SETTINGS_SECRET_PATHS[category], (v, path) =>
      v !== null && typeof v === 'object' && typeof (v as { $enc?: unknown }).$enc === 'string'
        ? this.box.decrypt((v as { $enc: string }).$enc, secretContext(category, path))
        : v,
    );
    return { fields, record };
  }

  private async write(category: SettingsCategory, fields: Fields, actor: Actor): Promise<void> {
    const sealed = mapSecrets(fields, SETTINGS_SECRET_PATHS[category], (v, path) =>
      typeof v === 'string' ? { $enc: this.box.encrypt(v, secretContext(category, path)) } : v,
    );
    await this.repo.put({
      key: storageKey(category),
      value: JSON.stringify(sealed),
      updated_ms: this.clock.now(),
      updated_by: actor.user?.username ?? null,
    });
  }

  /** Another daemon changed a category: drop the cached value and tell this daemon's listeners. */
  changedElsewhere(category: string): void {
    if (Object.hasOwn(SETTINGS_SCHEMAS, category)) this.changed(category as SettingsCategory, true);
  }

  private changed(category: SettingsCategory, elsewhere = false): void {
    this.cache.delete(category);
    for (const listener of this.listeners) listener(category, elsewhere);
  }
}
