import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { ApiError } from '../../api/http';
import { toApiError } from '../../api/trpc';
import type { SessionView } from '../../../../../shared/src/actions.schema';
import { actionsApi, FINISHED, type CommandView, type SessionSource } from './actions.api';

/** What a finished agent command came to, for the panel to say. */
export type CommandOutcome = { kind: 'listed' } | { kind: 'loggedOff'; id: number } | { kind: 'failed'; command: CommandView };

/**
 * The sessions of the host (or event target) open in the panel. Over WinRM the answer is
 * immediate; through the agent the command waits for the agent's next poll and its result
 * arrives on the live stream (`onCommand`).
 */
export const useSessionsStore = defineStore('sessions', () => {
  const source = shallowRef<SessionSource | null>(null);
  const sessions = shallowRef<SessionView[] | null>(null);
  const raw = ref<string | null>(null);
  const path = ref<'winrm' | 'agent' | null>(null);
  const target = ref<string | null>(null);
  const waiting = shallowRef<CommandView | null>(null);
  const loading = ref(false);
  const error = shallowRef<ApiError | null>(null);

  /** Starts over for another host or event. */
  function reset(next: SessionSource) {
    source.value = next;
    sessions.value = null;
    raw.value = null;
    path.value = null;
    target.value = null;
    waiting.value = null;
    error.value = null;
  }

  async function refresh() {
    const from = source.value;
    if (!from) return;
    loading.value = true;
    error.value = null;
    try {
      const a = await actionsApi.sessions(from);
      path.value = a.path;
      if (a.path === 'winrm') {
        sessions.value = a.sessions;
        raw.value = a.raw;
        target.value = a.target;
        waiting.value = null;
      } else {
        waiting.value = a.command;
      }
    } catch (err) {
      error.value = toApiError(err);
    } finally {
      loading.value = false;
    }
  }

  /** Logs a session off; true when done at once (WinRM), false when queued for the agent. */
  async function logoff(sessionId: number): Promise<boolean> {
    const from = source.value;
    if (!from) return false;
    const a = await actionsApi.logoff(from, sessionId);
    if (a.path === 'winrm') {
      await refresh();
      return true;
    }
    waiting.value = a.command;
    path.value = 'agent';
    return false;
  }

  /** A command update from the live stream; the outcome when it finished the command awaited. */
  function onCommand(c: CommandView): CommandOutcome | null {
    if (!waiting.value || c.id !== waiting.value.id) return null;
    waiting.value = c;
    if (!FINISHED.has(c.state)) return null;
    waiting.value = null;
    if (c.state !== 'succeeded') return { kind: 'failed', command: c };
    if (c.type === 'qwinsta') {
      sessions.value = c.sessions;
      raw.value = c.result?.stdout ?? null;
      target.value = null;
      return { kind: 'listed' };
    }
    void refresh();
    return { kind: 'loggedOff', id: Number(c.params.session_id) };
  }

  return { source, sessions, raw, path, target, waiting, loading, error, reset, refresh, logoff, onCommand };
});
