import { defineStore } from 'pinia';
import { ref } from 'vue';
import { useResource } from '../composables/useResource';
import { dashboardApi } from '../features/dashboard/dashboard.api';
import { rangeFromQuery, rangeToApi } from '../features/dashboard/dashboard.range';
import { eventsApi } from '../features/events/events.api';
import { problemsApi } from '../features/problems/problems.api';

/** The problems a phone lists: those still needing someone. */
const OPEN = { status: ['open' as const, 'acknowledged' as const] };

/**
 * The phone's screens, on the console's api modules and typed client: the dashboard counters with
 * the latest open problems, the open problems, one problem (acknowledge, resolve), and the latest
 * events with the one opened. The counters are the desktop dashboard's default range (the last
 * 24 h as the desktop asks for them), so phone and desktop show the same figures.
 */
export const useMobileStore = defineStore('mobile', () => {
  const dashboard = useResource(async () => {
    const [summary, problems] = await Promise.all([dashboardApi.summary(rangeToApi(rangeFromQuery({}))), problemsApi.list({ ...OPEN, limit: 5 })]);
    return { summary, problems: problems.items };
  });
  const problems = useResource(async () => (await problemsApi.list({ ...OPEN, limit: 100 })).items);

  const problemId = ref<string | null>(null);
  const problem = useResource(() => problemsApi.byId(problemId.value!));
  async function openProblem(id: string) {
    if (id !== problemId.value) problem.data.value = null;
    problemId.value = id;
    await problem.load();
  }
  async function act(action: 'acknowledge' | 'resolve') {
    await problemsApi.act(action, problemId.value!, undefined);
    await problem.load();
  }

  const eventId = ref<string | null>(null);
  const events = useResource(async () => {
    const [list, focused] = await Promise.all([eventsApi.list({ limit: 50 }), eventId.value ? eventsApi.byId(eventId.value) : Promise.resolve(null)]);
    return { items: list.items, focused };
  });
  async function openEvents(id: string | null) {
    eventId.value = id;
    await events.load();
  }

  return { dashboard, problems, problemId, problem, openProblem, act, eventId, events, openEvents };
});
