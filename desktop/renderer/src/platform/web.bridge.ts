import type { ConnectionProbe, ConnectionProfile, DesktopBridge } from '../../../preload/bridge';

/** The daemon that served this page: the web build always talks to its own origin and base path. */
function sameOrigin(): ConnectionProfile {
  const url = new URL('.', document.baseURI);
  return { id: 'same-origin', name: url.host, url: url.toString().replace(/\/$/, '') };
}

/** Probes a daemon's unauthenticated health route. */
export async function probeHealth(baseUrl: string, fetchImpl: typeof fetch = fetch): Promise<ConnectionProbe> {
  try {
    const res = await fetchImpl(`${baseUrl.replace(/\/$/, '')}/health`, { headers: { Accept: 'application/json' } });
    if (res.status !== 200) return { ok: false, message: `health answered HTTP ${res.status}` };
    const body = (await res.json()) as { version?: string; store?: string };
    return { ok: true, version: body.version ?? '?', store: body.store ?? '?' };
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
}

const unsupported = () => Promise.reject(new Error('The web console always uses the server it was opened from.'));

/**
 * The web build's bridge: one implicit connection (this origin), no token of its own (the session
 * is the daemon's HttpOnly cookie, shared by every tab, so a new tab or a shared link opens signed
 * in), and the browser Notification API when permitted.
 */
export function createWebBridge(): DesktopBridge {
  const canNotify = () => typeof Notification !== 'undefined';
  return {
    kind: 'web',
    capabilities: { connectionProfiles: false, secureTokenStorage: false, nativeNotifications: canNotify() },
    profiles: {
      list: async () => [sameOrigin()],
      active: async () => sameOrigin(),
      save: unsupported,
      remove: unsupported,
      activate: unsupported,
      probe: (url) => probeHealth(url),
    },
    tokens: null,
    notifications: {
      permitted: async () => canNotify() && Notification.permission === 'granted',
      async enable() {
        if (!canNotify()) return false;
        if (Notification.permission === 'default') await Notification.requestPermission();
        return Notification.permission === 'granted';
      },
      async show({ title, body, tag }) {
        if (canNotify() && Notification.permission === 'granted') new Notification(title, { body, tag });
      },
    },
  };
}
