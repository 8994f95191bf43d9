import { createPinia } from 'pinia';
import { createApp, watch } from 'vue';
import App from './App.vue';
import { createAppI18n } from './i18n';
import { usePrefsStore } from './features/prefs/prefs.store';
import { registerServiceWorker } from './mobile/pwa';
import { platform } from './platform';
import { createAppRouter } from './router';
import './styles/base.css';

const app = createApp(App);
const pinia = createPinia();
app.use(pinia);
const prefs = usePrefsStore(pinia);
const i18n = createAppI18n(prefs.locale);
watch(
  () => prefs.locale,
  (l) => (i18n.global.locale.value = l),
);
app.use(i18n);
app.use(createAppRouter());
app.mount('#app');
if (platform.kind === 'web') registerServiceWorker();
