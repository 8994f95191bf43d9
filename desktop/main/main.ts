import { readFile } from 'node:fs/promises';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, dialog, ipcMain, net, Notification, protocol, safeStorage, session, type IpcMainInvokeEvent } from 'electron';
import type { DesktopNotification, ProfileInput } from '../preload/bridge.js';
import { validateDaemonUrl } from './daemon-url.js';
import { fileResponseHeaders, proxyRequestHeaders, routeAppRequest } from './app-protocol.js';
import { ProfileStore, type TextStorage } from './profiles.js';
import { APP_ORIGIN, APP_SCHEME, installSecurity, isAllowedNavigation } from './security.js';
import { TokenVault } from './token-vault.js';

const here = path.dirname(fileURLToPath(import.meta.url));
// Same layout in the repository and inside the packaged app: dist/desktop/main → desktop/renderer/dist.
const rendererDir = path.resolve(here, '../../../desktop/renderer/dist');
const preloadFile = path.resolve(here, '../preload/preload.cjs');

/** A small JSON file in the user data folder, written owner-only. */
function fileStorage(name: string): TextStorage {
  const file = path.join(app.getPath('userData'), name);
  return {
    read: () => {
      try {
        return readFileSync(file, 'utf8');
      } catch {
        return null;
      }
    },
    write: (text) => {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, text, { mode: 0o600 });
    },
  };
}

protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, stream: true } }]);

async function handleAppRequest(request: Request, profiles: ProfileStore): Promise<Response> {
  const route = routeAppRequest(request.url, rendererDir, profiles.active()?.url ?? null);
  if (route.kind === 'proxy') {
    const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
    try {
      return await net.fetch(route.url, {
        method: request.method,
        headers: proxyRequestHeaders(request.headers),
        body: hasBody ? await request.arrayBuffer() : undefined,
        redirect: 'manual',
      });
    } catch (err) {
      return Response.json({ error: { code: 'desktop/unreachable', message: (err as Error).message } }, { status: 502 });
    }
  }
  if (route.kind === 'no_connection') return Response.json({ error: { code: 'desktop/no_connection', message: 'Choose a SAC server first' } }, { status: 503 });
  if (route.kind === 'not_found') return new Response('Not found', { status: 404 });
  try {
    return new Response(await readFile(route.file), { status: 200, headers: fileResponseHeaders(route.file) });
  } catch {
    return new Response('Not found', { status: 404 });
  }
}

/** IPC is accepted only from the app's own pages. */
function fromApp(event: IpcMainInvokeEvent): void {
  if (!event.senderFrame || !isAllowedNavigation(event.senderFrame.url)) throw new Error('IPC from an unexpected origin');
}

function registerIpc(profiles: ProfileStore, tokens: TokenVault): void {
  const handle = (channel: string, fn: (...args: unknown[]) => unknown) =>
    ipcMain.handle(channel, (event, ...args) => {
      fromApp(event);
      return fn(...args);
    });
  const activeId = () => profiles.active()?.id ?? null;
  handle('profiles:list', () => profiles.list());
  handle('profiles:active', () => profiles.active());
  handle('profiles:save', (input) => profiles.save(input as ProfileInput));
  handle('profiles:remove', (id) => {
    tokens.clear(String(id));
    profiles.remove(String(id));
  });
  handle('profiles:activate', (id) => profiles.activate(String(id)));
  handle('profiles:probe', async (url) => {
    const check = validateDaemonUrl(String(url));
    if (!check.ok) return { ok: false, message: check.reason };
    try {
      const res = await net.fetch(`${check.url}/health`, { headers: { Accept: 'application/json' } });
      if (res.status !== 200) return { ok: false, message: `health answered HTTP ${res.status}` };
      const body = (await res.json()) as { version?: string; store?: string };
      return { ok: true, version: body.version ?? '?', store: body.store ?? '?' };
    } catch (err) {
      return { ok: false, message: (err as Error).message };
    }
  });
  handle('tokens:get', () => {
    const id = activeId();
    return id ? tokens.get(id) : null;
  });
  handle('tokens:set', (token) => {
    const id = activeId();
    if (id && typeof token === 'string' && token.length < 8192) tokens.set(id, token);
  });
  handle('tokens:clear', () => {
    const id = activeId();
    if (id) tokens.clear(id);
  });
  handle('notifications:show', (n) => {
    const { title, body } = n as DesktopNotification;
    if (Notification.isSupported()) new Notification({ title: String(title).slice(0, 200), body: String(body).slice(0, 1000) }).show();
  });
}

function createWindow(): void {
  const win = new BrowserWindow({
    width: 1440,
    height: 900,
    minWidth: 1000,
    minHeight: 640,
    title: 'SAC',
    backgroundColor: '#0f1419',
    show: false,
    webPreferences: {
      preload: preloadFile,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webviewTag: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      spellcheck: false,
    },
  });
  win.once('ready-to-show', () => win.show());
  void win.loadURL(`${APP_ORIGIN}/index.html`);
}

/**
 * Asked once per run when Linux has no keyring (safeStorage backend `basic_text`): saving the
 * session token then protects it with a key anyone can read, so the default is not to save it.
 */
function askWeakTokenStorage(): boolean {
  const ru = app.getLocale().toLowerCase().startsWith('ru');
  const choice = dialog.showMessageBoxSync({
    type: 'warning',
    buttons: ru ? ['Не сохранять', 'Сохранять всё равно'] : ['Do not save', 'Save anyway'],
    defaultId: 0,
    cancelId: 0,
    message: ru ? 'Хранилище паролей системы недоступно' : 'No system keyring is available',
    detail: ru
      ? 'Без него токен входа будет сохранён на диске почти открытым текстом. Не сохранять: после перезапуска приложения нужно будет войти снова.'
      : 'Without one, the sign-in token would be saved on disk practically in clear text. Do not save: you sign in again after the app restarts.',
  });
  return choice === 1;
}

void app.whenReady().then(() => {
  const profiles = new ProfileStore(fileStorage('connections.json'));
  const tokens = new TokenVault(fileStorage('tokens.json'), safeStorage, askWeakTokenStorage);
  installSecurity(app, session.defaultSession);
  protocol.handle(APP_SCHEME, (request) => handleAppRequest(request, profiles));
  registerIpc(profiles, tokens);
  createWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});
