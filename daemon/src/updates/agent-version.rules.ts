import type { AgentVersionStatus } from '../../../shared/src/index.js';

/**
 * Agent versions are not semver: the real agents ship `2.1.7-SAC` and `1.1.2-ipset`. A version is
 * a numeric release part (`2.1.7`, any number of components, an optional leading `v`) and an
 * optional suffix after `-`, `+` or `_` (`SAC`, `ipset`, `rc2`). As the agent contract says, two
 * versions compare by the numeric part, then by the whole string (ordinal): the suffix names a
 * build flavour rather than a pre-release, so `1.1.2` < `1.1.2-ipset`.
 */
export interface AgentVersion {
  release: number[];
  suffix: string;
}

const VERSION = /^v?(\d{1,9}(?:\.\d{1,9}){0,5})(?:[-+_.]?([0-9A-Za-z][0-9A-Za-z.+_-]{0,63}))?$/;

/** The parts of a version string, or null when it has no numeric release part. */
export function parseAgentVersion(value: string): AgentVersion | null {
  const m = VERSION.exec(value.trim());
  if (!m) return null;
  return { release: m[1].split('.').map(Number), suffix: m[2] ?? '' };
}

/** Negative when `a` is older than `b`, positive when newer, 0 when equal; null when either does not parse. */
export function compareAgentVersions(a: string, b: string): number | null {
  const va = parseAgentVersion(a);
  const vb = parseAgentVersion(b);
  if (!va || !vb) return null;
  const length = Math.max(va.release.length, vb.release.length);
  for (let i = 0; i < length; i++) {
    const diff = (va.release[i] ?? 0) - (vb.release[i] ?? 0);
    if (diff !== 0) return Math.sign(diff);
  }
  const wa = a.trim().replace(/^v/, '');
  const wb = b.trim().replace(/^v/, '');
  return wa === wb ? 0 : wa < wb ? -1 : 1;
}

/** An agent is outdated when its version is older than the latest; unknown when either does not parse. */
export function isOutdated(agentVersion: string | null | undefined, latest: string | null | undefined): boolean {
  if (!agentVersion || !latest) return false;
  const c = compareAgentVersions(agentVersion, latest);
  return c !== null && c < 0;
}

/**
 * What can honestly be said of an agent's version: outdated when older than its product's latest
 * release (read from git) or than the newest version seen in the fleet; up to date only against a
 * known latest release; otherwise unknown (no repository read, or the version does not parse).
 */
export function agentVersionStatus(agentVersion: string, latest: string | null, newestSeen: string | null): AgentVersionStatus {
  if (isOutdated(agentVersion, latest) || isOutdated(agentVersion, newestSeen)) return 'outdated';
  return latest !== null && compareAgentVersions(agentVersion, latest) !== null ? 'up_to_date' : 'unknown';
}

/** The newest agent version stored for each product across the fleet's hosts. */
export function newestSeenByProduct(hosts: readonly { agent_product: string; agent_version: string }[]): Map<string, string> {
  const byProduct = new Map<string, string[]>();
  for (const h of hosts) {
    const versions = byProduct.get(h.agent_product);
    if (versions) versions.push(h.agent_version);
    else byProduct.set(h.agent_product, [h.agent_version]);
  }
  return new Map([...byProduct].flatMap(([product, versions]) => {
    const newest = newestVersion(versions);
    return newest === null ? [] : [[product, newest] as const];
  }));
}

/** The newest of the strings that parse as versions (tags such as `v2.1.8-SAC`), or null. */
export function newestVersion(candidates: readonly string[]): string | null {
  let best: string | null = null;
  for (const c of candidates) {
    if (!parseAgentVersion(c)) continue;
    if (best === null || compareAgentVersions(c, best)! > 0) best = c;
  }
  return best;
}

/**
 * The version a product's version file names: a `NAME_VERSION="…"` assignment (the `ssh-monitor`
 * script's `SSH_MONITOR_VERSION="1.1.2-ipset"`) or else the first non-empty line (`version.txt`).
 */
export function versionFromFile(text: string): string | null {
  const assignment = /^\s*(?:export\s+)?[A-Z][A-Z0-9_]*VERSION\s*=\s*["']?([^"'\s#]+)["']?/m.exec(text);
  const candidate = assignment ? assignment[1] : (text.replace(/^\uFEFF/, '').split(/\r?\n/).find((l) => l.trim() !== '')?.trim() ?? '');
  const bare = candidate.replace(/^v(?=\d)/, '');
  return parseAgentVersion(bare) ? bare : null;
}

/** A tag as a version: `v2.1.8-SAC` → `2.1.8-SAC`; null for tags that are not versions. */
export function versionFromTag(tag: string): string | null {
  const bare = tag.replace(/^(?:release[-/])?v?(?=\d)/i, '');
  return parseAgentVersion(bare) ? bare : null;
}
