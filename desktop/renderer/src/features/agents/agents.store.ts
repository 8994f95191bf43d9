import { defineStore } from 'pinia';
import { computed, shallowRef } from 'vue';
import { useResource } from '../../composables/useResource';
import { hostsApi } from '../hosts/hosts.api';
import { agentsApi, productProgress, type AgentUpdateQuery } from './agents.api';

/**
 * Agent versions and update jobs: the latest version per product, the jobs for the view's filters,
 * every job (the progress of "update all" counts them all) and the hosts (names, outdated counts).
 */
export const useAgentsStore = defineStore('agents', () => {
  const filter = shallowRef<Omit<AgentUpdateQuery, 'limit'>>({});
  const versions = useResource(() => agentsApi.versions());
  const jobs = useResource(() => agentsApi.jobs({ limit: 500, ...filter.value }));
  const allJobs = useResource(() => agentsApi.jobs({ limit: 500 }));
  const hosts = useResource(async () => (await hostsApi.list('')).items);
  const names = computed(() => new Map((hosts.data.value ?? []).map((h) => [h.id, h.hostname])));
  const hostOptions = computed(() => [...(hosts.data.value ?? [])].sort((a, b) => a.hostname.localeCompare(b.hostname)));

  /** Hosts whose agent is older than their product's latest ("update all" acts on them). */
  const outdatedCount = (product: string) => (hosts.data.value ?? []).filter((h) => h.agent_product === product && h.outdated).length;
  const progressOf = (product: string, latest: string | null) => productProgress(allJobs.data.value ?? [], product, latest);

  async function filterJobs(next: Omit<AgentUpdateQuery, 'limit'>) {
    filter.value = next;
    await jobs.load();
  }
  function reloadJobs() {
    void jobs.load();
    void allJobs.load();
    void hosts.load();
  }
  async function checkNow() {
    versions.data.value = await agentsApi.refreshVersions();
  }
  async function updateAll(product: string) {
    const r = await agentsApi.updateProduct(product);
    reloadJobs();
    return r;
  }
  async function push(jobId: string) {
    const job = await agentsApi.push(jobId);
    reloadJobs();
    return job;
  }
  return { versions, jobs, allJobs, hosts, names, hostOptions, outdatedCount, progressOf, filterJobs, reloadJobs, checkNow, updateAll, push };
});
