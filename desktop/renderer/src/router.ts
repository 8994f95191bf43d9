import { createRouter, createWebHashHistory, createWebHistory, type RouteRecordRaw, type Router } from 'vue-router';
import { useAuthStore } from './features/auth/auth.store';
import { mobileRoutes } from './mobile/mobile.routes';
import { platform } from './platform';

declare module 'vue-router' {
  interface RouteMeta {
    /** Reachable without signing in. */
    public?: boolean;
    /** Only administrators see it (the server enforces it too). */
    admin?: boolean;
  }
}

export const routes: RouteRecordRaw[] = [
  { path: '/login', name: 'login', component: () => import('./features/auth/LoginView.vue'), meta: { public: true } },
  { path: '/connect', name: 'connect', component: () => import('./features/connection/ConnectView.vue'), meta: { public: true } },
  { path: '/', name: 'dashboard', component: () => import('./features/dashboard/DashboardView.vue') },
  { path: '/events', name: 'events', component: () => import('./features/events/EventsView.vue') },
  { path: '/problems/:id?', name: 'problems', component: () => import('./features/problems/ProblemsView.vue') },
  { path: '/logins/:user', name: 'userLogins', component: () => import('./features/logins/UserLoginsView.vue') },
  { path: '/hosts/:id?', name: 'hosts', component: () => import('./features/hosts/HostsView.vue') },
  { path: '/maintenance', name: 'maintenance', component: () => import('./features/maintenance/MaintenanceView.vue') },
  { path: '/bans', name: 'bans', component: () => import('./features/bans/BansView.vue') },
  { path: '/profile', name: 'profile', component: () => import('./features/profile/ProfileView.vue') },
  { path: '/commands', name: 'commands', component: () => import('./features/actions/CommandsView.vue') },
  { path: '/approvals/:id?', name: 'approvals', component: () => import('./features/approvals/ApprovalsView.vue') },
  // Nested, so the menu's Agents entry stays lit on the Rollouts tab.
  {
    path: '/agents',
    children: [
      { path: '', name: 'agents', component: () => import('./features/agents/AgentsView.vue') },
      { path: 'rollouts/:id?', name: 'rollouts', component: () => import('./features/agents/RolloutsView.vue') },
    ],
  },
  { path: '/api-reference', name: 'apiReference', component: () => import('./features/apiref/ApiReferenceView.vue') },
  { path: '/admin/settings', name: 'settings', component: () => import('./features/settings/SettingsView.vue'), meta: { admin: true } },
  // A monitor may read the groups (the nav offers it to admins, who change them).
  { path: '/admin/groups', name: 'groups', component: () => import('./features/groups/GroupsView.vue') },
  { path: '/admin/users', name: 'users', component: () => import('./features/users/UsersView.vue'), meta: { admin: true } },
  { path: '/admin/api-keys', name: 'apiKeys', component: () => import('./features/apikeys/ApiKeysView.vue'), meta: { admin: true } },
  { path: '/admin/audit', name: 'audit', component: () => import('./features/audit/AuditView.vue'), meta: { admin: true } },
  { path: '/admin/deliveries', name: 'deliveries', component: () => import('./features/deliveries/DeliveriesView.vue'), meta: { admin: true } },
  { path: '/admin/reports', name: 'reports', component: () => import('./features/reports/ReportsView.vue'), meta: { admin: true } },
  { path: '/admin/devices', name: 'devices', component: () => import('./features/devices/DevicesView.vue'), meta: { admin: true } },
  ...mobileRoutes,
  { path: '/:rest(.*)*', name: 'notFound', component: () => import('./components/NotFoundView.vue') },
];

/**
 * The router. The web build uses real paths (the daemon falls back to index.html); the Electron
 * shell serves files from its own protocol, so it uses hash URLs. Guards: a connection must be
 * chosen (desktop), a session must exist, and admin pages need the admin role.
 */
export function createAppRouter(): Router {
  const router = createRouter({
    history: platform.kind === 'electron' ? createWebHashHistory() : createWebHistory(new URL('.', document.baseURI).pathname),
    routes,
  });
  let restored: Promise<boolean> | null = null;
  router.beforeEach(async (to) => {
    if (to.name === 'connect') return platform.capabilities.connectionProfiles ? true : { name: 'dashboard' };
    if (platform.capabilities.connectionProfiles && !(await platform.profiles.active())) return { name: 'connect' };
    const auth = useAuthStore();
    restored ??= auth.restore();
    await restored;
    if (to.meta.public) return true;
    if (!auth.signedIn) return { name: 'login', query: to.fullPath !== '/' ? { next: to.fullPath } : {} };
    // The dashboard says why it opened instead (`denied` names the refused page).
    if (to.meta.admin && !auth.isAdmin) return { name: 'dashboard', query: { denied: to.path } };
    return true;
  });
  return router;
}
