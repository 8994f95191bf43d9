// @vitest-environment happy-dom
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import { defineComponent, h } from 'vue';
import { ApiError } from '../api/http';
import ConfirmHost from '../components/ConfirmHost.vue';
import ToastHost from '../components/ToastHost.vue';
import { createAppI18n } from '../i18n';
import { useAction, type Action } from './useAction';

/** A host page with the one confirm dialog and the toasts, and a component that acts. */
function mountAction() {
  let action!: Action;
  const Acting = defineComponent({
    setup() {
      action = useAction();
      return () => h('button', { disabled: action.busy }, 'act');
    },
  });
  const wrapper = mount(defineComponent({ render: () => h('div', [h(Acting), h(ConfirmHost), h(ToastHost)]) }), {
    global: { plugins: [createPinia(), createAppI18n('en')] },
    attachTo: document.body,
  });
  return { wrapper, action: () => action };
}

/** A promise settled from the test, to see the action while it runs. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}
const toasts = (w: ReturnType<typeof mountAction>['wrapper']) => w.findAll('.toast').map((t) => [t.classes().find((c) => c !== 'toast'), t.text()]);
const confirmRequest = { title: 'Delete', message: 'Delete host RDS01?', confirmLabel: 'Delete' };

describe('useAction', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('is busy while the work runs, then says so in a toast and returns its result', async () => {
    const { wrapper, action } = mountAction();
    const work = deferred<{ created: number }>();
    const result = action().run(() => work.promise, { success: (r) => `${r.created} created` });
    await flushPromises();
    expect(action().busy).toBe(true);
    expect(wrapper.find('button').attributes('disabled')).toBeDefined();
    work.resolve({ created: 3 });
    expect(await result).toEqual({ created: 3 });
    await flushPromises();
    expect(action().busy).toBe(false);
    expect(toasts(wrapper)).toEqual([['ok', '3 created']]);
    wrapper.unmount();
  });

  it('asks first; a cancel runs nothing, a confirm runs the work with the dialog open and busy', async () => {
    const { wrapper, action } = mountAction();
    let runs = 0;
    const cancelled = action().run(async () => (runs += 1), { confirm: confirmRequest });
    await flushPromises();
    expect(wrapper.find('[role="dialog"]').text()).toContain('Delete host RDS01?');
    await wrapper.findAll('[role="dialog"] footer button')[0].trigger('click');
    expect(await cancelled).toBeUndefined();
    expect(runs).toBe(0);
    expect(wrapper.find('[role="dialog"]').exists()).toBe(false);

    const work = deferred<void>();
    const confirmed = action().run(() => work.promise, { confirm: confirmRequest, success: 'Deleted' });
    await flushPromises();
    await wrapper.find('[role="dialog"] button.danger').trigger('click');
    await flushPromises();
    expect(wrapper.find('[role="dialog"] button.danger').attributes('disabled')).toBeDefined();
    work.resolve();
    await confirmed;
    await flushPromises();
    expect(wrapper.find('[role="dialog"]').exists()).toBe(false);
    expect(toasts(wrapper)).toEqual([['ok', 'Deleted']]);
    wrapper.unmount();
  });

  it('puts a failure in an error toast in the console’s words (the role refusal, the unreachable server, else the daemon’s message)', async () => {
    const { wrapper, action } = mountAction();
    expect(await action().run(() => Promise.reject(new ApiError('role admin required', 403, 'auth/forbidden')))).toBeUndefined();
    await action().run(() => Promise.reject(new ApiError('The SAC server cannot be reached', 0, 'network/unreachable')));
    await action().run(() => Promise.reject(new ApiError('Host RDS01 is in use', 409, 'hosts/in_use')));
    await flushPromises();
    expect(toasts(wrapper)).toEqual([
      ['error', 'Your role does not allow this.'],
      ['error', 'The SAC server cannot be reached. Retrying…'],
      ['error', 'Host RDS01 is in use'],
    ]);
    expect(action().error?.code).toBe('hosts/in_use');
    wrapper.unmount();
  });

  it('keeps an inline failure for the form, without a toast, and clears it when the next run starts', async () => {
    const { wrapper, action } = mountAction();
    await action().run(() => Promise.reject(new ApiError('Password is too short', 400, 'validation/invalid')), { inline: true });
    await action().run(() => Promise.reject(new ApiError('Wrong code', 400, 'auth/wrong_code')), { inline: (e) => e.code === 'auth/wrong_code' });
    await flushPromises();
    expect(toasts(wrapper)).toEqual([]);
    expect(action().error?.message).toBe('Wrong code');
    const next = action().run(() => new Promise(() => undefined));
    expect(action().error).toBeNull();
    void next;
    wrapper.unmount();
  });
});
