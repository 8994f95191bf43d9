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
  /** How many problems each type (and rule) opened in the last week. */
  openedByType: () => call(() => trpc.problems.openedByType.query()),
  /** How many browsers and phones subscribed to push; null when it cannot be read. */
  pushSubscriptions: () =>
    call(() => trpc.notifications.pushSubscriptions.query()).then(
      (r) => r.length,
      () => null,
    ),
  /** Reads a saved product's git repository now (REST only: the daemon has no tRPC procedure for it). */
  testGitRepo: (product: string) => requestJson<GitTest>('POST', 'api/v1/settings/git_repos/test', { body: { product } }),
};

/** What reading a git repository found. */
export interface GitTest {
  ok: boolean;
  detail: string;
  latest_version?: string | null;
  commit?: string | null;
}
