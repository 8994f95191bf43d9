/* SAC service worker: the offline shell, push notifications and their taps.
 * It never caches API answers: only the page shell, the hashed build assets, the manifest and
 * the icons. Plain script (served as is from the build root, so its scope is the whole console). */
/* global self, caches */
'use strict';

const SHELL_CACHE = 'sac-shell-v1';
const ASSET_CACHE = 'sac-assets-v1';
const scope = new URL(self.registration.scope);
const SHELL_URL = new URL('./', scope).href;
const PRECACHE = [SHELL_URL, 'manifest.webmanifest', 'icons/icon-192.png', 'icons/icon-512.png', 'favicon.svg'].map((p) => new URL(p, scope).href);

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(SHELL_CACHE)
      .then((cache) => cache.addAll(PRECACHE))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== SHELL_CACHE && k !== ASSET_CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

function isStaticAsset(url) {
  return url.pathname.startsWith(new URL('assets/', scope).pathname);
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== scope.origin) return;
  if (request.mode === 'navigate') {
    // Network first, so a signed-in page always comes fresh; the cached shell only when offline.
    event.respondWith(
      fetch(request).catch(() => caches.open(SHELL_CACHE).then((cache) => cache.match(SHELL_URL)).then((r) => r || Response.error())),
    );
    return;
  }
  if (isStaticAsset(url)) {
    // Hashed file names never change content: cache first, fill on first use.
    event.respondWith(
      caches.open(ASSET_CACHE).then((cache) =>
        cache.match(request).then(
          (hit) =>
            hit ||
            fetch(request).then((res) => {
              if (res.ok) cache.put(request, res.clone());
              return res;
            }),
        ),
      ),
    );
    return;
  }
  if (PRECACHE.includes(url.href)) {
    event.respondWith(fetch(request).catch(() => caches.open(SHELL_CACHE).then((cache) => cache.match(url.href)).then((r) => r || Response.error())));
  }
  // Everything else (the API, tRPC, the live stream) goes to the network untouched and uncached.
});

async function tellClients(message) {
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  for (const w of windows) w.postMessage(message);
}

self.addEventListener('push', (event) => {
  let payload = null;
  try {
    payload = event.data ? event.data.json() : null;
  } catch {
    payload = { title: 'SAC', body: event.data ? event.data.text() : '' };
  }
  if (!payload) return;
  const options = {
    body: payload.body || '',
    tag: payload.tag,
    data: payload.data || {},
    actions: Array.isArray(payload.actions) ? payload.actions.slice(0, 2) : [],
    icon: new URL('icons/icon-192.png', scope).href,
    badge: new URL('icons/icon-192.png', scope).href,
  };
  event.waitUntil(
    self.registration.showNotification(payload.title || 'SAC', options).then(() => tellClients({ type: 'sac-push', payload })),
  );
});

/** Actions a notification may ask for: acknowledging a problem, deciding an approval request. */
const TAP_ACTIONS = ['acknowledge', 'approve', 'deny'];

/**
 * The screen for a tap target of SAC's API: `/problems/{id}` and `/events/{id}` open the mobile
 * client, `/approvals/{id}` the console's request (whoever decides signs in with their own session;
 * the notification carries no secret). A tapped action rides along as `?action=`, and the screen
 * asks to confirm before it acts.
 */
function screenFor(data, action) {
  const path = typeof data.url === 'string' ? data.url : '';
  const url = /^\/approvals\/[A-Za-z0-9_.:-]+$/.test(path)
    ? new URL(path.slice(1), scope)
    : new URL(`m${/^\/(problems|events)\/[A-Za-z0-9_.:-]+$/.test(path) ? path : '/'}`, scope);
  if (TAP_ACTIONS.includes(action)) url.searchParams.set('action', action);
  return url.href;
}

self.addEventListener('notificationclick', (event) => {
  const notification = event.notification;
  notification.close();
  const href = screenFor(notification.data || {}, event.action);
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((windows) => {
      const same = windows.find((w) => new URL(w.url).origin === scope.origin && 'navigate' in w);
      if (same) return same.focus().then((w) => w.navigate(href));
      return self.clients.openWindow(href);
    }),
  );
});
