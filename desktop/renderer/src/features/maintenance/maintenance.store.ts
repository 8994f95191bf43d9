import { defineStore } from 'pinia';
import { ref } from 'vue';
import { useResource } from '../../composables/useResource';
import { maintenanceApi, type MaintenanceWindow } from './maintenance.api';
import type { MaintenanceWindowInput } from '../../../../../shared/src/maintenance.schema';

/** Maintenance windows: the list with whether this user may manage them, and the windows in force per host. */
export const useMaintenanceStore = defineStore('maintenance', () => {
  const list = useResource(async () => {
    const [windows, canManage] = await Promise.all([maintenanceApi.list(), maintenanceApi.canManage()]);
    return { windows, canManage };
  });
  /** Windows in force, by host name ('' for any host): what the badges show. */
  const active = ref(new Map<string, MaintenanceWindow[]>());

  async function loadActive(host: string | undefined) {
    let windows: MaintenanceWindow[];
    try {
      windows = await maintenanceApi.active(host);
    } catch {
      // A badge is a hint: without it the page still works.
      windows = [];
    }
    active.value = new Map(active.value).set(host ?? '', windows);
  }
  async function save(id: string | null, input: MaintenanceWindowInput) {
    if (id) await maintenanceApi.update(id, input);
    else await maintenanceApi.create(input);
    await list.load();
  }
  async function end(id: string) {
    await maintenanceApi.end(id);
    await list.load();
  }
  return { list, active, loadActive, save, end };
});
