import { defineStore } from 'pinia';
import type { SettingsCategory } from '../../../../../shared/src/settings.schema';
import { useResource } from '../../composables/useResource';
import { settingsApi, type GitTest, type TestChannel } from './settings.api';
import { reactive } from 'vue';

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
  /** Push subscriptions (browsers and phones): push with keys but no subscriber sends nothing. */
  const pushSubscriptions = useResource(() => settingsApi.pushSubscriptions());
  /** The week's problems per type, beside the per-type choices of the correlation settings. */
  const openedByType = useResource(settingsApi.openedByType);

  /** Git repository tests by product: running, then what reading it found (a failed call is a failed read). */
  const gitTests = reactive<Record<string, { busy: boolean; result: GitTest | null }>>({});
  async function testGitRepo(product: string) {
    gitTests[product] = { busy: true, result: null };
    try {
      gitTests[product].result = await settingsApi.testGitRepo(product);
    } catch (err) {
      gitTests[product].result = { ok: false, detail: (err as Error).message };
    } finally {
      gitTests[product].busy = false;
    }
  }

  return { list, save, reset, test, pushSubscriptions, openedByType, gitTests, testGitRepo };
});
