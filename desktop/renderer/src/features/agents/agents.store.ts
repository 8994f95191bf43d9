import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import { useResource } from '../../composables/useResource';
import { hostsApi } from '../hosts/hosts.api';
import { agentsApi, configText, productProgress, type AgentUpdateQuery } from './agents.api';

/**
 * Agent versions and update jobs: the latest version per product, the jobs for the view's filters,
 * every job (the progress per product counts them all) and the hosts (names, outdated counts).
 */
export const useAgentsStore = defineStore('agents', () => {
  const filter = shallowRef<Omit<AgentUpdateQuery, 'limit'>>({});
  const versions = useResource(() => agentsApi.versions());
  const jobs = useResource(() => agentsApi.jobs({ limit: 500, ...filter.value }));
  const allJobs = useResource(() => agentsApi.jobs({ limit: 500 }));
  const hosts = useResource(async () => (await hostsApi.list('')).items);
  const names = computed(() => new Map((hosts.data.value ?? []).map((h) => [h.id, h.hostname])));
  const hostOptions = computed(() => [...(hosts.data.value ?? [])].sort((a, b) => a.hostname.localeCompare(b.hostname)));

  /** Hosts whose agent is older than their product's latest (a rollout of all outdated acts on them). */
  const outdatedCount = (product: string) => (hosts.data.value ?? []).filter((h) => h.agent_product === product && h.outdated).length;
  /** Per product seen on hosts: the newest version stored and how many hosts run an older one. */
  const fleet = computed(() => {
    const byProduct = new Map<string, { product: string; newest: string | null; total: number; outdated: number }>();
    for (const h of hosts.data.value ?? []) {
      const p = byProduct.get(h.agent_product) ?? { product: h.agent_product, newest: h.newest_seen, total: 0, outdated: 0 };
      p.total += 1;
      if (h.version_status === 'outdated') p.outdated += 1;
      byProduct.set(h.agent_product, p);
    }
    return [...byProduct.values()].sort((a, b) => a.product.localeCompare(b.product));
  });
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
  async function push(jobId: string) {
    const job = await agentsApi.push(jobId);
    reloadJobs();
    return job;
  }
  return { versions, jobs, allJobs, hosts, names, hostOptions, fleet, outdatedCount, progressOf, filterJobs, reloadJobs, checkNow, push };
});

/** The host page's agent: its latest update job, starting or pushing one, and its desired configuration. */
export const useHostAgentStore = defineStore('hostAgent', () => {
  const hostId = ref<string | null>(null);
  const jobs = useResource(() => agentsApi.jobs({ host_id: hostId.value!, limit: 1 }));
  const job = computed(() => jobs.data.value?.[0] ?? null);
  const config = useResource(() => agentsApi.hostConfig(hostId.value!));
  /** The configuration as saved, in the editor's text form. */
  const savedText = computed(() => (config.data.value ? configText(config.data.value) : null));

  async function open(id: string) {
    hostId.value = id;
    jobs.data.value = null;
    config.data.value = null;
    await Promise.all([jobs.load(), config.load()]);
  }
  async function startUpdate() {
    const r = await agentsApi.updateHost(hostId.value!);
    await jobs.load();
    return r;
  }
  async function push(jobId: string) {
    const r = await agentsApi.push(jobId);
    await jobs.load();
    return r;
  }
  async function saveConfig(value: Record<string, unknown>) {
    config.data.value = await agentsApi.setHostConfig(hostId.value!, value);
  }
  return { hostId, jobs, job, config, savedText, open, startUpdate, push, saveConfig };
});
