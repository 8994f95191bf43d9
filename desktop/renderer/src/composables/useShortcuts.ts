import { onBeforeUnmount, onMounted } from 'vue';
import { feedKey, isTyping, type ShortcutAction } from './shortcuts';

const SEQUENCE_TIMEOUT_MS = 1500;

/** Installs the global key handler for the lifetime of the calling component. */
export function useShortcuts(run: (action: ShortcutAction) => void): void {
  let pending: string[] = [];
  let lastKeyAt = 0;
  const onKey = (ev: KeyboardEvent) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.key !== 'Escape' && isTyping(ev.target)) return;
    if (Date.now() - lastKeyAt > SEQUENCE_TIMEOUT_MS) pending = [];
    lastKeyAt = Date.now();
    const result = feedKey(pending, ev.key);
    pending = result.pending;
    if (result.action) {
      ev.preventDefault();
      run(result.action);
    }
  };
  onMounted(() => window.addEventListener('keydown', onKey));
  onBeforeUnmount(() => window.removeEventListener('keydown', onKey));
}
