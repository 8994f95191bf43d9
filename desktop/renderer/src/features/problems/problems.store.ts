import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import { PROBLEM_STATUSES } from '../../../../../shared/src/read-api.schema';
import { ApiError } from '../../api/http';
import { useResource } from '../../composables/useResource';
import { problemsApi, type ProblemAction, type ProblemsQuery } from './problems.api';

/** What an acknowledge/resolve attempt came to: done, or someone else changed the problem first (any other failure throws). */
export type ActionOutcome = { ok: true } | { ok: false; status: string | null };
/** What an assignment came to: done, or someone else holds the problem now (any other failure throws). */
export type AssignOutcome = { ok: true } | { ok: false; who: string | null };

const STATUSES: readonly string[] = PROBLEM_STATUSES;

/** The current status a 409 reports in `details.status`, when it is one. */
function conflictStatus(e: ApiError): string | null {
  const status = (e.details as { status?: unknown } | null)?.status;
  return typeof status === 'string' && STATUSES.includes(status) ? status : null;
}

/**
 * Problems: the filtered list, the selected problem with its timeline, and acknowledge/resolve.
 * A 409 (`problem/invalid_transition`) means someone else changed the problem first: the store
 * reloads both and reports the state it is in now.
 */
export const useProblemsStore = defineStore('problems', () => {
  const query = shallowRef<ProblemsQuery>({ status: ['open', 'acknowledged'], limit: 200 });
  const list = useResource(() => problemsApi.list(query.value));
  const selectedId = ref<string | null>(null);
  const detail = useResource(() => problemsApi.byId(selectedId.value!));
  const acting = ref<ProblemAction | null>(null);

  async function load(q: ProblemsQuery) {
    query.value = q;
    await list.load();
  }

  async function select(id: string | null) {
    selectedId.value = id;
    if (id) await detail.load();
  }

  async function act(action: ProblemAction, comment: string): Promise<ActionOutcome> {
    const id = selectedId.value;
    if (!id) throw new ApiError('No problem selected', 0, null);
    acting.value = action;
    try {
      await problemsApi.act(action, id, comment.trim() || undefined);
      await Promise.all([detail.load(), list.load()]);
      return { ok: true };
    } catch (err) {
      const e = err as ApiError;
      if (e.status !== 409) throw e;
      // The daemon names the status it found; the reloaded detail may lose a race with a reload
      // started by the live stream, so it is only the fallback.
      await Promise.all([detail.load(), list.load()]);
      return { ok: false, status: conflictStatus(e) ?? detail.data.value?.status ?? null };
    } finally {
      acting.value = null;
    }
  }

  /**
   * The same action on several problems, one request each (so each is checked and audited like a
   * single one); a problem someone else changed first is skipped, any other failure stops the run.
   */
  async function bulk(action: ProblemAction, ids: string[]): Promise<{ ok: number; skipped: number }> {
    acting.value = action;
    let ok = 0;
    let skipped = 0;
    try {
      for (const id of ids) {
        try {
          await problemsApi.act(action, id, undefined);
          ok += 1;
        } catch (err) {
          if ((err as ApiError).status !== 409) throw err;
          skipped += 1;
        }
      }
      return { ok, skipped };
    } finally {
      acting.value = null;
      await Promise.all([list.load(), selectedId.value ? detail.load() : Promise.resolve()]);
    }
  }

  /** Active console users, loaded once the assignee picker is first opened. */
  const assignees = useResource(problemsApi.assignees);

  /** Sets or clears the selected problem's assignee; a 409 reports who holds it now. */
  async function assign(assigneeId: string | null): Promise<AssignOutcome> {
    const current = detail.data.value;
    if (!current) throw new ApiError('No problem selected', 0, null);
    try {
      await problemsApi.assign(current.id, assigneeId, current.assignee_id);
      await Promise.all([detail.load(), list.load()]);
      return { ok: true };
    } catch (err) {
      const e = err as ApiError;
      if (e.status !== 409) throw e;
      await Promise.all([detail.load(), list.load()]);
      const who = (e.details as { assignee?: unknown } | null)?.assignee;
      return { ok: false, who: typeof who === 'string' ? who : null };
    }
  }

  return { query, list, selectedId, detail, acting, assignees, load, select, act, bulk, assign };
});
