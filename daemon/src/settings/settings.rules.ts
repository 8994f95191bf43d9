/**
 * Pure helpers over the secret fields of a settings value. Paths are dotted, `*` meaning every
 * array item (`repos.*.token`); the callback gets the concrete path (`repos.0.token`).
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
    return Array.isArray(node) ? node.map((item, i) => mapPath(item, tail, [...done, String(i)], fn)) : node;
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
