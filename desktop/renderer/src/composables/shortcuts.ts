/** Keyboard shortcuts: one table drives both the key handler and the help overlay. */
export const SHORTCUTS = [
  { keys: ['/'], action: 'focusSearch' },
  { keys: ['g', 'd'], action: 'goDashboard' },
  { keys: ['g', 'e'], action: 'goEvents' },
  { keys: ['g', 'p'], action: 'goProblems' },
  { keys: ['g', 'h'], action: 'goHosts' },
  { keys: ['g', 's'], action: 'goSettings' },
  { keys: ['t'], action: 'toggleTheme' },
  { keys: ['?'], action: 'help' },
  { keys: ['Escape'], action: 'close' },
] as const;

export type ShortcutAction = (typeof SHORTCUTS)[number]['action'];

/**
 * Feeds one key into the pending sequence. Returns the completed action (if any) and the new
 * pending prefix (keys typed so far that start a longer shortcut).
 */
export function feedKey(pending: readonly string[], key: string): { action: ShortcutAction | null; pending: string[] } {
  for (const seq of [[...pending, key], [key]]) {
    const exact = SHORTCUTS.find((s) => s.keys.length === seq.length && s.keys.every((k, i) => k === seq[i]));
    if (exact) return { action: exact.action, pending: [] };
    const prefix = SHORTCUTS.some((s) => s.keys.length > seq.length && seq.every((k, i) => s.keys[i] === k));
    if (prefix) return { action: null, pending: seq };
  }
  return { action: null, pending: [] };
}

/** True when a key press belongs to a text field (shortcuts other than Escape must not fire). */
export function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el || !el.tagName) return false;
  return el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName);
}
