import { defineStore } from 'pinia';
import { ref } from 'vue';
import { useResource } from '../../composables/useResource';
import { loginsApi } from './logins.api';

/** The user page: whose logins are shown and what the daemon answered for them. */
export const useLoginsStore = defineStore('logins', () => {
  const user = ref('');
  const view = useResource(() => loginsApi.user(user.value));
  async function open(name: string) {
    if (name !== user.value) view.data.value = null;
    user.value = name;
    await view.load();
  }
  return { user, view, open };
});
