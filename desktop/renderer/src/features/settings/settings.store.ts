import { defineStore } from 'pinia';
import type { SettingsCategory } from '../../../../../shared/src/settings.schema';
import { useResource } from '../../composables/useResource';
import { settingsApi, type TestChannel } from './settings.api';

/** Every settings category (admin; secrets masked by the server), saving, resetting and test sends. */
export const useSettingsStore = defineStore('settings', () => {
  const list = useResource(settingsApi.list);

  async function save(category: SettingsCategory, values: Record<string, unknown>) {
    await settingsApi.update({ category, values });
    await list.load();
  }
  async function reset(category: SettingsCategory) {
    await settingsApi.reset({ category });
    await list.load();
  }
  const test = (channel: TestChannel) => settingsApi.test(channel);

  return { list, save, reset, test };
});
