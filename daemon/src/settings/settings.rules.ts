import { isDeepStrictEqual } from 'node:util';
import { SETTINGS_SECRET_DESTINATIONS, SETTINGS_SECRET_ROW_DESTINATIONS, type SettingsCategory } from '../../../shared/src/index.js';

/**
 * Pure helpers over the secret fields of a settings value. Paths are dotted, `*` meaning every
 * array item (`repos.*.token`) or every value of a map (`headers.*`); the callback gets the
 * concrete path (`repos.0.token`, `headers.Authorization`).
 */
export function mapSecrets(
  value: Record<string, unknown>,
  paths: readonly string[],
  fn: (secret: unknown, path: string) => unknown,
): Record<string, unknown> {
  let out: unknown = value;
  for (const path of paths) out = mapPath(out, path.split('.'), [], fn);
  return out as Record<string, unknown>;
}

function mapPath(node: unknown, rest: string[], done: string[], fn: (secret: unknown, path: string) => unknown): unknown {
  if (rest.length === 0) return fn(node, done.join('.'));
  const [head, ...tail] = rest;
  if (head === '*') {
    if (Array.isArray(node)) return node.map((item, i) => mapPath(item, tail, [...done, String(i)], fn));
    // On an object (a map such as webhook headers) `*` is every value.
    if (node === null || typeof node !== 'object') return node;
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, mapPath(v, tail, [...done, k], fn)]));
  }
  if (node === null || typeof node !== 'object' || Array.isArray(node) || !(head in node)) return node;
  const obj = node as Record<string, unknown>;
  return { ...obj, [head]: mapPath(obj[head], tail, [...done, head], fn) };
}

/** The value at a concrete dotted path, or undefined. */
export function valueAt(value: unknown, path: string): unknown {
  let node = value;
  for (const part of path.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** `{ "set": true }`: what a read shows for a stored secret; sent back, it keeps the stored value. */
export function isKeepMarker(v: unknown): boolean {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && (v as { set?: unknown }).set === true && Object.keys(v).length === 1;
}

/** Replaces secret values by `{ set }` for reading. */
export function maskSecrets(value: Record<string, unknown>, paths: readonly string[]): Record<string, unknown> {
  return mapSecrets(value, paths, (v) => ({ set: v !== null && v !== undefined && v !== '' }));
}

/** In an update, turns every keep-marker into the current value at the same path. */
export function resolveKeepMarkers(
  update: Record<string, unknown>,
  current: Record<string, unknown>,
  paths: readonly string[],
): Record<string, unknown> {
  return mapSecrets(update, paths, (v, path) => (isKeepMarker(v) ? (valueAt(current, path) ?? null) : v));
}

function hasSecret(v: unknown): boolean {
  if (v === null || v === undefined || v === '') return false;
  if (typeof v === 'object' && !Array.isArray(v)) return Object.values(v).some(hasSecret);
  return true;
}

function carriesMarker(v: unknown): boolean {
  if (isKeepMarker(v)) return true;
  return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.values(v).some(carriesMarker);
}

/**
 * The secret fields an update must carry anew because it changes where they go: every stored
 * secret a changed destination field guards (`SETTINGS_SECRET_DESTINATIONS`) that the update keeps
 * (`{ set: true }` or absent), and the tokens of git repository rows that point elsewhere.
 * `next` is the validated value after the update, so that only a real change counts.
 */
export function secretsToResend(category: SettingsCategory, update: Record<string, unknown>, current: Record<string, unknown>, next: Record<string, unknown>): string[] {
  const missing: string[] = [];
  const rule = SETTINGS_SECRET_DESTINATIONS[category];
  if (rule && rule.fields.some((field) => !isDeepStrictEqual(next[field], current[field]))) {
    missing.push(...rule.secrets.filter((secret) => hasSecret(current[secret]) && (!(secret in update) || carriesMarker(update[secret]))));
  }
  const rows = SETTINGS_SECRET_ROW_DESTINATIONS[category];
  if (rows && Array.isArray(update[rows.list])) missing.push(...rowSecretsToResend(rows, update[rows.list] as unknown[], current[rows.list]));
  return missing;
}

/**
 * The secret fields a reset would hand to a destination chosen without them: a guarded secret
 * reset to a value from the environment while one of its destination fields stays stored.
 */
export function secretsUnguardedByReset(category: SettingsCategory, removed: readonly string[], next: Record<string, unknown>, effectiveAfter: Record<string, unknown>): string[] {
  const rule = SETTINGS_SECRET_DESTINATIONS[category];
  if (!rule || !rule.fields.some((field) => field in next)) return [];
  return rule.secrets.filter((secret) => removed.includes(secret) && hasSecret(effectiveAfter[secret]));
}

type RowRule = NonNullable<(typeof SETTINGS_SECRET_ROW_DESTINATIONS)[SettingsCategory]>;

function rowSecretsToResend(rule: RowRule, rows: unknown[], stored: unknown): string[] {
  const before = Array.isArray(stored) ? stored : [];
  const missing: string[] = [];
  rows.forEach((row, i) => {
    if (row === null || typeof row !== 'object' || !isKeepMarker((row as Record<string, unknown>)[rule.secret])) return;
    const was = before[i] as Record<string, unknown> | undefined;
    if (!was || !hasSecret(was[rule.secret])) return;
    if (rule.destination.some((k) => (row as Record<string, unknown>)[k] !== was[k])) missing.push(`${rule.list}.${i}.${rule.secret}`);
  });
  return missing;
}
