import type { JobState } from '../../../../../shared/src/jobs.types';
import { requestJson } from '../../api/http';

/** The periodic jobs of the daemon this console talks to, from its public `/health`. */
export const jobsApi = {
  list: async (): Promise<JobState[]> => (await requestJson<{ jobs?: JobState[] }>('GET', 'health', { auth: false })).jobs ?? [],
};
