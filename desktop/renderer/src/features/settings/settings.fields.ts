import type { z } from 'zod';
import { SETTINGS_SCHEMAS, SETTINGS_SECRET_DESTINATIONS, SETTINGS_SECRET_PATHS, type SettingsCategory } from '../../../../../shared/src/settings.schema';

/** How one top-level settings field is edited. */
export type FieldKind =
  | 'secret'
  /** A multi-line secret (a private key): a write-only text area. */
  | 'secretText'
  | 'boolean'
  | 'number'
  | 'text'
  /** Multi-line text kept as one string (known_hosts). */
  | 'longText'
  | 'enum'
  | 'enumList'
  | 'lines'
  | 'map'
  /** The git repositories list, edited row by row. */
  | 'repos'
  /** Escalation policies per severity. */
  | 'policies'
  /** Per event type: open a problem, count into the host's, or never (with the week's counts). */
  | 'typeProblems'
  /** The approval policy's per-group entries: a group picker and the actions. */
  | 'groupPolicies'
  | 'json';

/** Fields whose text spans lines: a PEM key or certificates and OpenSSH known_hosts and allowed_signers files. */
const MULTILINE = new Set(['ssh_admin.private_key', 'ssh_admin.known_hosts', 'windows_admin.ca_pem', 'git_repos.allowed_signers']);

export interface FieldSpec {
  key: string;
  kind: FieldKind;
  nullable: boolean;
  /** Choices of `enum` / `enumList`. */
  options: string[];
}

type Def = { type: string; innerType?: z.ZodType; element?: z.ZodType; entries?: Record<string, string>; valueType?: z.ZodType };
const defOf = (t: z.ZodType) => (t as unknown as { _zod: { def: Def } })._zod.def;

/** Strips default/optional wrappers; reports whether null is allowed. */
function unwrap(t: z.ZodType): { core: z.ZodType; nullable: boolean } {
  let nullable = false;
  let cur = t;
  for (;;) {
    const d = defOf(cur);
    if (d.type === 'nullable') nullable = true;
    if ((d.type === 'default' || d.type === 'optional' || d.type === 'nullable' || d.type === 'pipe') && d.innerType) cur = d.innerType;
    else return { core: cur, nullable };
  }
}

/** The form of a settings category, derived from its zod schema in shared/ (one source of truth). */
export function fieldsOf(category: SettingsCategory): FieldSpec[] {
  const shape = (SETTINGS_SCHEMAS[category] as unknown as z.ZodObject).shape as Record<string, z.ZodType>;
  const secrets = new Set(SETTINGS_SECRET_PATHS[category]);
  return Object.entries(shape).map(([key, type]) => {
    const { core, nullable } = unwrap(type);
    const d = defOf(core);
    const base = { key, nullable, options: [] as string[] };
    const multiline = MULTILINE.has(`${category}.${key}`);
    if (secrets.has(key)) return { ...base, kind: multiline ? 'secretText' : 'secret' };
    if (d.type === 'boolean') return { ...base, kind: 'boolean' };
    if (d.type === 'number') return { ...base, kind: 'number' };
    if (d.type === 'enum') return { ...base, kind: 'enum', options: Object.values(d.entries ?? {}) };
    if (d.type === 'array') {
      const el = defOf(unwrap(d.element!).core);
      if (el.type === 'enum') return { ...base, kind: 'enumList', options: Object.values(el.entries ?? {}) };
      if (el.type === 'string') return { ...base, kind: 'lines' };
      if (category === 'approvals' && key === 'by_group') return { ...base, kind: 'groupPolicies' };
      return { ...base, kind: category === 'git_repos' && key === 'repos' ? 'repos' : 'json' };
    }
    if (d.type === 'record') {
      const v = defOf(unwrap(d.valueType!).core).type;
      if (category === 'correlation' && key === 'type_problems') return { ...base, kind: 'typeProblems' };
      if (v === 'string' || v === 'number' || v === 'enum') return { ...base, kind: 'map' };
      return { ...base, kind: category === 'escalation' && key === 'policies' ? 'policies' : 'json' };
    }
    if (d.type === 'string') return { ...base, kind: multiline ? 'longText' : 'text' };
    return { ...base, kind: 'json' };
  });
}

/**
 * How a stored secret value of a map (a webhook header) shows in its input; left as it is, the
 * daemon keeps the stored value (`{ set: true }`).
 */
export const KEPT_SECRET = '•••••• (kept)';

function isSetMarker(v: unknown): boolean {
  return v !== null && typeof v === 'object' && (v as { set?: unknown }).set === true;
}

/** The text a field shows in its input. */
export function toInput(spec: FieldSpec, value: unknown): string | boolean | string[] {
  switch (spec.kind) {
    case 'secret':
    case 'secretText':
    case 'repos':
    case 'policies':
    case 'typeProblems':
    case 'groupPolicies':
      return '';
    case 'boolean':
      return value === true;
    case 'enumList':
      return Array.isArray(value) ? value.map(String) : [];
    case 'lines':
      return Array.isArray(value) ? value.join('\n') : '';
    case 'map':
      return Object.entries((value ?? {}) as Record<string, unknown>)
        .map(([k, v]) => `${k} = ${isSetMarker(v) ? KEPT_SECRET : v}`)
        .join('\n');
    case 'json':
      return JSON.stringify(value ?? null, null, 2);
    default:
      return value === null || value === undefined ? '' : String(value);
  }
}

/** Parses an input back to the API value; throws an Error with a readable message for malformed text. */
export function fromInput(spec: FieldSpec, input: string | boolean | string[], numericMapValues = false): unknown {
  switch (spec.kind) {
    case 'boolean':
    case 'enumList':
      return input;
    case 'number': {
      const s = String(input).trim();
      if (!s) return spec.nullable ? null : Number.NaN;
      return Number(s);
    }
    case 'lines':
      return String(input)
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean);
    case 'map': {
      const out: Record<string, string | number> = {};
      const keep: Record<string, { set: true }> = {};
      for (const line of String(input).split('\n')) {
        if (!line.trim()) continue;
        const i = line.indexOf('=');
        if (i < 1) throw new Error(`"${line.trim()}": use "key = value"`);
        const v = line.slice(i + 1).trim();
        if (v === KEPT_SECRET) {
          keep[line.slice(0, i).trim()] = { set: true };
          continue;
        }
        out[line.slice(0, i).trim()] = numericMapValues && v !== '' && !Number.isNaN(Number(v)) ? Number(v) : v;
      }
      return { ...out, ...keep };
    }
    case 'json':
      try {
        return JSON.parse(String(input));
      } catch {
        throw new Error('is not valid JSON');
      }
    default: {
      const s = String(input).trim();
      return s === '' && spec.nullable ? null : s;
    }
  }
}

/**
 * Whether a parsed input is the stored value. Text inputs are trimmed, so a stored text compares
 * trimmed: known_hosts written through the API with a final newline is not a change (that would
 * also count as a moved SSH destination and ask for the key again).
 */
export function sameAsStored(value: unknown, stored: unknown): boolean {
  if (typeof value === 'string' && typeof stored === 'string') return value === stored.trim();
  return JSON.stringify(value) === JSON.stringify(stored ?? null);
}

/** Whether the map's values are numbers in the schema (stale minutes per product) rather than strings. */
export function mapHasNumbers(category: SettingsCategory, key: string): boolean {
  const shape = (SETTINGS_SCHEMAS[category] as unknown as z.ZodObject).shape as Record<string, z.ZodType>;
  const d = defOf(unwrap(shape[key]).core);
  return d.type === 'record' && defOf(unwrap(d.valueType!).core).type === 'number';
}

/** Validates one field with the category's schema; returns the first message or null. */
export function checkField(category: SettingsCategory, key: string, value: unknown): string | null {
  const shape = (SETTINGS_SCHEMAS[category] as unknown as z.ZodObject).shape as Record<string, z.ZodType>;
  const r = shape[key].safeParse(value);
  return r.success ? null : (r.error.issues[0]?.message ?? 'is invalid');
}

/**
 * The stored secrets the daemon will ask for again because a changed field moves where they are
 * sent (`SETTINGS_SECRET_DESTINATIONS`), and which changed fields do so.
 */
export function secretsNeededAgain(category: SettingsCategory, changed: readonly string[], stored: (secret: string) => boolean): { secrets: string[]; moved: string[] } {
  const rule = SETTINGS_SECRET_DESTINATIONS[category];
  const moved = rule ? rule.fields.filter((f) => changed.includes(f)) : [];
  return { secrets: moved.length && rule ? rule.secrets.filter(stored) : [], moved };
}
