import type { DesktopBridge } from '../../../preload/bridge';
import { createWebBridge } from './web.bridge';

export type { ConnectionProfile, ConnectionProbe, DesktopBridge } from '../../../preload/bridge';

/**
 * The platform the console runs on. Inside Electron the preload put a bridge on `window`; in a
 * browser the web implementation stands in. Features read `platform.capabilities`.
 */
export const platform: DesktopBridge = window.sacDesktop ?? createWebBridge();
