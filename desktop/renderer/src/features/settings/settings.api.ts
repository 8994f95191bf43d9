import { requestJson } from '../../api/http';
import { call, trpc } from '../../api/trpc';
import type { RouterInputs, RouterOutputs } from '../../api/types';

export type SettingsViewRow = RouterOutputs['settings']['list'][number];
export type TestChannel = RouterInputs['notifications']['test']['channel'];
export type TestResult = RouterOutputs['notifications']['test'];

export const settingsApi = {
  list: () => call(() => trpc.settings.list.query()),
  update: (input: RouterInputs['settings']['update']) => call(() => trpc.settings.update.mutate(input)),
  reset: (input: RouterInputs['settings']['reset']) => call(() => trpc.settings.reset.mutate(input)),
  test: (channel: TestChannel) => call(() => trpc.notifications.test.mutate({ channel })),
  /** How many browsers and phones subscribed to push; null when it cannot be read. */
  pushSubscriptions: () =>
    requestJson<{ subscriptions: unknown[] }>('GET', 'api/v1/push/subscriptions').then(
      (r) => r.subscriptions.length,
      () => null,
    ),
};
