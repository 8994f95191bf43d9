import type { JobState } from '../../../../../shared/src/jobs.types';
import { requestJson } from '../../api/http';

/** The periodic jobs of the daemon this console talks to, from `/health` (with the session: why they fail). */
export const jobsApi = {
  list: async (): Promise<JobState[]> => (await requestJson<{ jobs?: JobState[] }>('GET', 'health')).jobs ?? [],
};
