import { describe, expect, it } from 'vitest';
import type { SettingsView } from '../../../../../shared/src/settings.schema';
import { configuredChannels, enabledButUnconfigured } from './channels';

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
});
