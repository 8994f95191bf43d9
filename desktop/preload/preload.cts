import { contextBridge, ipcRenderer } from 'electron';
import type { DesktopBridge } from './bridge.js';

/**
 * The preload (sandboxed, so one self-contained CommonJS file): exposes exactly one object,
 * `window.sacDesktop`, typed by DesktopBridge. Every call crosses IPC to the main process, which
 * checks that it comes from the app's own page.
 */
export function createDesktopBridge(invoke: (channel: string, ...args: unknown[]) => Promise<any>): DesktopBridge {
  return {
    kind: 'electron',
    capabilities: { connectionProfiles: true, secureTokenStorage: true, nativeNotifications: true },
    profiles: {
      list: () => invoke('profiles:list'),
      active: () => invoke('profiles:active'),
      save: (input) => invoke('profiles:save', { id: input.id, name: input.name, url: input.url }),
      remove: (id) => invoke('profiles:remove', id),
      activate: (id) => invoke('profiles:activate', id),
      probe: (url) => invoke('profiles:probe', url),
    },
    tokens: {
      get: () => invoke('tokens:get'),
      set: (token) => invoke('tokens:set', token),
      clear: () => invoke('tokens:clear'),
    },
    notifications: {
      permitted: async () => true,
      enable: async () => true,
      show: (n) => invoke('notifications:show', { title: n.title, body: n.body, tag: n.tag }),
    },
  };
}

contextBridge.exposeInMainWorld('sacDesktop', createDesktopBridge((channel, ...args) => ipcRenderer.invoke(channel, ...args)));
