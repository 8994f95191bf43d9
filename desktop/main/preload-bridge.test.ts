import { describe, expect, it, vi } from 'vitest';

const exposed = vi.hoisted(() => ({ name: '', api: null as unknown }));
vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (name: string, api: unknown) => Object.assign(exposed, { name, api }) },
  ipcRenderer: { invoke: vi.fn(async () => null) },
}));
const { createDesktopBridge } = await import('../preload/preload.cjs');

describe('preload bridge', () => {
  it('exposes exactly one object, window.sacDesktop, with these keys', () => {
    expect(exposed.name).toBe('sacDesktop');
    const api = exposed.api as Record<string, unknown>;
    const shape = Object.fromEntries(Object.entries(api).map(([k, v]) => [k, typeof v === 'object' && v ? Object.keys(v).sort() : v]));
    expect(shape).toMatchInlineSnapshot(`
      {
        "capabilities": [
          "connectionProfiles",
          "nativeNotifications",
          "secureTokenStorage",
        ],
        "kind": "electron",
        "notifications": [
          "enable",
          "permitted",
          "show",
        ],
        "profiles": [
          "activate",
          "active",
          "list",
          "probe",
          "remove",
          "save",
        ],
        "tokens": [
          "clear",
          "get",
          "set",
        ],
      }
    `);
  });

  it('sends plain, copied arguments over the named IPC channels', async () => {
    const invoke = vi.fn(async (..._args: unknown[]) => null);
    const bridge = createDesktopBridge(invoke);
    await bridge.profiles.save({ name: 'A', url: 'https://a.example', extra: 'dropped' } as never);
    await bridge.tokens?.set('tok');
    await bridge.notifications.show({ title: 't', body: 'b', tag: 'problem-1' });
    expect(invoke.mock.calls).toEqual([
      ['profiles:save', { id: undefined, name: 'A', url: 'https://a.example' }],
      ['tokens:set', 'tok'],
      ['notifications:show', { title: 't', body: 'b', tag: 'problem-1' }],
    ]);
  });
});
