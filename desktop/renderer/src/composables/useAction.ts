import { reactive, ref, shallowRef } from 'vue';
import { useI18n } from 'vue-i18n';
import { errorText } from '../api/error-text';
import type { ApiError } from '../api/http';
import { toApiError } from '../api/trpc';
import type { ApprovalActionInput } from '../../../../shared/src/approvals.schema';
import { useApprovalsStore } from '../features/approvals/approvals.store';
import { useConfirmStore, type ConfirmRequest } from '../features/confirm/confirm.store';
import { useToastStore } from '../features/toast/toast.store';

export interface ActionOptions<T> {
  /** Ask first (the one confirm dialog); a cancel runs nothing. */
  confirm?: ConfirmRequest;
  /** The toast on success (none when absent or null). */
  success?: string | ((result: T) => string | null);
  /** Keep the failure in `error` for a form to show beside its fields instead of a toast (all, or those the test picks). */
  inline?: boolean | ((error: ApiError) => boolean);
}

export interface Action {
  /** True while an action runs (buttons disable on it). */
  readonly busy: boolean;
  /** The last failure, for `inline` actions; cleared when the next one starts. */
  error: ApiError | null;
  /** Runs `work` with confirm, busy, success and error toasts; the result, or undefined when cancelled or failed. */
  run<T>(work: () => Promise<T>, options?: ActionOptions<T>): Promise<T | undefined>;
}

/**
 * Confirm → act → toast, the way every view that changes something does it. An action the
 * daemon holds back for a second person's approval opens the request dialog instead of a toast.
 */
export function useAction(): Action {
  const { t, te } = useI18n();
  const toast = useToastStore();
  const confirm = useConfirmStore();
  const approvals = useApprovalsStore();
  const busy = ref(false);
  const error = shallowRef<ApiError | null>(null);

  async function run<T>(work: () => Promise<T>, options: ActionOptions<T> = {}): Promise<T | undefined> {
    if (options.confirm && !(await confirm.ask(options.confirm))) return undefined;
    busy.value = true;
    error.value = null;
    try {
      const result = await work();
      const text = typeof options.success === 'function' ? options.success(result) : options.success;
      if (text) toast.ok(text);
      return result;
    } catch (err) {
      const e = toApiError(err);
      if (e.code === 'approval/required') {
        approvals.ask((e.details as { request: ApprovalActionInput }).request);
        return undefined;
      }
      error.value = e;
      const inline = typeof options.inline === 'function' ? options.inline(e) : options.inline;
      if (!inline) toast.error(errorText(e, t, te));
      return undefined;
    } finally {
      busy.value = false;
      if (options.confirm) confirm.settle();
    }
  }
  return reactive({ busy, error, run }) as Action;
}
