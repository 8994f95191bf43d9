import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';

/** What a destructive action asks before it runs. */
export interface ConfirmRequest {
  title: string;
  message: string;
  confirmLabel: string;
  /** The answer that runs nothing, when "Cancel" does not say what it keeps ("Keep editing"). */
  cancelLabel?: string;
}

/**
 * The one confirm dialog (rendered by ConfirmHost): `ask` opens it and resolves true on confirm,
 * false on cancel. The dialog stays open, busy, until `settle` — so the action runs while the
 * question is still on screen, as before.
 */
export const useConfirmStore = defineStore('confirm', () => {
  const request = shallowRef<ConfirmRequest | null>(null);
  const busy = ref(false);
  let answer: ((yes: boolean) => void) | null = null;

  function ask(next: ConfirmRequest): Promise<boolean> {
    answer?.(false);
    request.value = next;
    busy.value = false;
    return new Promise((resolve) => (answer = resolve));
  }
  function reply(yes: boolean) {
    const resolve = answer;
    answer = null;
    if (yes) busy.value = true;
    else request.value = null;
    resolve?.(yes);
  }
  function settle() {
    request.value = null;
    busy.value = false;
  }
  return { request, busy, ask, reply, settle };
});
