/**
 * The one object the Electron preload exposes to the renderer (`window.sacDesktop`), and the
 * interface the web build implements too, so features ask for capabilities instead of asking
 * "am I in Electron?". Every method is async because the Electron side crosses IPC.
 */

/** A daemon the desktop app can connect to. */
export interface ConnectionProfile {
  id: string;
  name: string;
  /** Normalised base URL, no trailing slash (may carry a path prefix such as /sac). */
  url: string;
}

export interface ProfileInput {
  id?: string;
  name: string;
  url: string;
}

/** Result of probing a daemon's `/health` before saving a profile. */
export type ConnectionProbe = { ok: true; version: string; store: string } | { ok: false; message: string };

export interface DesktopNotification {
  title: string;
  body: string;
  /** Used by the web build as the Notification tag, so one problem notifies once. */
  tag: string;
}

export interface DesktopCapabilities {
  /** Several daemons can be chosen (Electron); the web build always talks to its own origin. */
  connectionProfiles: boolean;
  /** Tokens are encrypted by the OS keychain (Electron safeStorage). */
  secureTokenStorage: boolean;
  /** OS notifications are possible (Electron always; web only after permission). */
  nativeNotifications: boolean;
}

export interface DesktopBridge {
  readonly kind: 'electron' | 'web';
  readonly capabilities: DesktopCapabilities;
  profiles: {
    list(): Promise<ConnectionProfile[]>;
    /** The profile the app talks to now, or null when the user must pick one. */
    active(): Promise<ConnectionProfile | null>;
    /** Validates and stores a profile; rejects with a readable message for a bad URL. */
    save(input: ProfileInput): Promise<ConnectionProfile>;
    remove(id: string): Promise<void>;
    activate(id: string): Promise<void>;
    probe(url: string): Promise<ConnectionProbe>;
  };
  /**
   * The console session token of the active connection; null where the session is the daemon's
   * HttpOnly cookie instead (the web build: one session for every tab of the browser).
   */
  tokens: {
    get(): Promise<string | null>;
    set(token: string): Promise<void>;
    clear(): Promise<void>;
  } | null;
  notifications: {
    /** True when notifications can be shown without asking the user (granted before, or native). */
    permitted(): Promise<boolean>;
    /** Asks the user once where the platform needs it; true when notifications can be shown. */
    enable(): Promise<boolean>;
    show(notification: DesktopNotification): Promise<void>;
  };
}

declare global {
  interface Window {
    /** Present only inside the Electron shell (set by the preload through contextBridge). */
    sacDesktop?: DesktopBridge;
  }
}
