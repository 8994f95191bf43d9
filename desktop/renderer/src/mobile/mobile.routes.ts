import type { RouteRecordRaw } from 'vue-router';

/**
 * The mobile client's screens under `/m/`. They are public to the console's guard: the mobile
 * shell has its own session (an enrolled device, or the console sign-in) and sends a phone
 * without one to enrollment.
 */
export const mobileRoutes: RouteRecordRaw[] = [
  { path: '/m/enroll', name: 'mobileEnroll', component: () => import('./MobileEnrollView.vue'), meta: { public: true } },
  {
    path: '/m',
    component: () => import('./MobileShell.vue'),
    meta: { public: true },
    children: [
      { path: '', name: 'mobileDashboard', component: () => import('./MobileDashboardView.vue'), meta: { public: true } },
      { path: 'problems', name: 'mobileProblems', component: () => import('./MobileProblemsView.vue'), meta: { public: true } },
      { path: 'problems/:id', name: 'mobileProblem', component: () => import('./MobileProblemView.vue'), meta: { public: true } },
      { path: 'events/:id?', name: 'mobileEvents', component: () => import('./MobileEventsView.vue'), meta: { public: true } },
    ],
  },
];
