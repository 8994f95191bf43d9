import type { App, Session, WebContents } from 'electron';

/** The renderer is served from this privileged custom scheme, never from http(s) or file://. */
export const APP_SCHEME = 'app';
export const APP_HOST = 'sac';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;

/**
 * CSP of every page the shell serves: only its own files, and API calls to its own origin (the
 * shell proxies /api and /trpc to the chosen daemon, so the renderer never talks to another origin).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "frame-src 'none'",
  "form-action 'none'",
].join('; ');

/** What the shell forwards to the daemon (app-protocol.ts): API answers, never pages. */
const API_PATH = /^\/(api|trpc)(\/|$)/i;

/**
 * Navigation guard: the window may only ever show the app's own pages, never an API answer
 * (opened as a page, a daemon response would run with the app's origin and bridge).
 */
export function isAllowedNavigation(url: string): boolean {
  try {
    const u = new URL(url);
    if (u.protocol !== `${APP_SCHEME}:` || u.host !== APP_HOST) return false;
    let pathname = u.pathname;
    try {
      pathname = decodeURIComponent(pathname);
    } catch {
      return false;
    }
    return !API_PATH.test(pathname.replace(/\/{2,}/g, '/').replace(/\/\.(?=\/|$)/g, ''));
  } catch {
    return false;
  }
}

/** Blocks navigation away from the app, new windows, and `<webview>` for one web contents. */
export function hardenWebContents(contents: WebContents): void {
  const guard = (event: { preventDefault(): void }, url: string) => {
    if (!isAllowedNavigation(url)) event.preventDefault();
  };
  contents.on('will-navigate', guard);
  contents.on('will-redirect', guard);
  contents.on('will-frame-navigate', (event) => guard(event, event.url));
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
}

/** App-wide hardening: every web contents is guarded and the renderer gets no permissions (notifications come from main). */
export function installSecurity(app: App, session: Session): void {
  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents));
  session.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
}
