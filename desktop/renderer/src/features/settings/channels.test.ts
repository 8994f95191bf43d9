import { describe, expect, it } from 'vitest';
import type { SettingsView } from '../../../../../shared/src/settings.schema';
import { configuredChannels, deliverableChannels, enabledButUnconfigured } from './channels';

const view = (category: string, values: Record<string, unknown>) => ({ category, values, stored_fields: [], updated_at: null, updated_by: null }) as unknown as SettingsView;

describe('channel readiness', () => {
  it('needs every part a channel sends with, and names enabled channels that cannot send', () => {
    const views = [
      view('telegram', { bot_token: { set: true }, chat_ids: [] }),
      view('webhook', { url: 'http://127.0.0.1:9/hook' }),
      view('smtp', { url: { set: true }, from: 'sac@example.test', to: ['soc@example.test'] }),
      view('push', { vapid_public_key: null, vapid_private_key: { set: false } }),
      view('notification_policy', { enabled_channels: ['telegram', 'webhook', 'smtp', 'push'] }),
    ];
    expect([...configuredChannels(views)].sort()).toEqual(['smtp', 'webhook']);
    expect(enabledButUnconfigured(views)).toEqual(['telegram', 'push']);
    expect(enabledButUnconfigured([view('telegram', { bot_token: { set: true }, chat_ids: ['1001'] }), view('notification_policy', { enabled_channels: ['telegram'] })])).toEqual([]);
  });

  it('counts push only with a subscriber, and nothing is deliverable when the policy enables only idle channels', () => {
    const keys = view('push', { vapid_public_key: 'BPub', vapid_private_key: { set: true } });
    const hook = view('webhook', { url: 'http://127.0.0.1:9/hook' });
    const policy = (enabled: string[]) => view('notification_policy', { enabled_channels: enabled });
    expect(deliverableChannels([keys, hook, policy(['push', 'telegram'])], 0)).toEqual([]);
    expect(enabledButUnconfigured([keys, policy(['push'])], 0)).toEqual(['push']);
    expect(deliverableChannels([keys, hook, policy(['push', 'telegram'])], 2)).toEqual(['push']);
    // The webhook is configured but turned off by the policy: still nothing goes out.
    expect(deliverableChannels([keys, hook, policy(['telegram'])], 2)).toEqual([]);
    expect(deliverableChannels([keys, hook, policy(['webhook'])], 0)).toEqual(['webhook']);
  });
});
