import { defineStore } from 'pinia';
import { ref } from 'vue';

export interface Toast {
  id: number;
  kind: 'ok' | 'error' | 'info';
  text: string;
}

/** Short confirmations and failures shown in the corner. */
export const useToastStore = defineStore('toast', () => {
  const toasts = ref<Toast[]>([]);
  let next = 1;
  function push(kind: Toast['kind'], text: string, ms = kind === 'error' ? 8000 : 4000) {
    const id = next++;
    toasts.value.push({ id, kind, text });
    setTimeout(() => dismiss(id), ms);
  }
  function dismiss(id: number) {
    toasts.value = toasts.value.filter((t) => t.id !== id);
  }
  return { toasts, push, dismiss, ok: (t: string) => push('ok', t), error: (t: string) => push('error', t), info: (t: string) => push('info', t) };
});
