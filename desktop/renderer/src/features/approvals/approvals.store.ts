import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { ApprovalActionInput, ApprovalState } from '../../../../../shared/src/approvals.schema';
import { useResource } from '../../composables/useResource';
import { approvalsApi } from './approvals.api';

/**
 * Two-person approval in the console: the requests (and how many the user may decide, for the
 * menu), and the one "request approval" dialog that opens when the daemon holds an action back
 * (`approval/required` carries the request to file).
 */
export const useApprovalsStore = defineStore('approvals', () => {
  const filter = ref<ApprovalState | 'all'>('pending');
  const list = useResource(() => approvalsApi.list(filter.value === 'all' ? undefined : filter.value));
  const pendingForMe = ref(0);
  /** The request the page opened on (`/approvals/{id}`, a push notification's tap target), or null. */
  const openedId = ref<string | null>(null);
  const opened = useResource(() => (openedId.value ? approvalsApi.byId(openedId.value) : Promise.resolve(null)));
  /** The held-back action the dialog asks a reason for, or null. */
  const asking = shallowRef<ApprovalActionInput | null>(null);

  async function refreshCount() {
    pendingForMe.value = (await approvalsApi.list('pending')).pending_for_me;
  }
  async function afterChange() {
    await Promise.all([list.load(), refreshCount(), opened.load()]);
  }
  async function open(id: string | null) {
    openedId.value = id;
    await opened.load();
  }
  function ask(request: ApprovalActionInput) {
    asking.value = request;
  }
  async function request(reason: string) {
    if (!asking.value) return;
    await approvalsApi.request(asking.value, reason);
    asking.value = null;
    await afterChange();
  }
  async function approve(id: string, note?: string) {
    const decided = await approvalsApi.approve(id, note);
    await afterChange();
    return decided;
  }
  async function deny(id: string, note?: string) {
    await approvalsApi.deny(id, note);
    await afterChange();
  }
  async function cancel(id: string) {
    await approvalsApi.cancel(id);
    await afterChange();
  }
  return { filter, list, pendingForMe, opened, asking, refreshCount, open, ask, request, approve, deny, cancel };
});
