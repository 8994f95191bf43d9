import { ref, shallowRef, type Ref, type ShallowRef } from 'vue';
import type { ApiError } from '../api/http';
import { toApiError } from '../api/trpc';

export interface Resource<T> {
  data: ShallowRef<T | null>;
  loading: Ref<boolean>;
  error: ShallowRef<ApiError | null>;
  /** Loads again; a newer call wins over an older one still running. */
  load(): Promise<void>;
}

/** Loading / error / data for one API read, as every list and panel needs it. */
export function useResource<T>(loader: () => Promise<T>): Resource<T> {
  const data = shallowRef<T | null>(null);
  const loading = ref(false);
  const error = shallowRef<ApiError | null>(null);
  let seq = 0;
  async function load() {
    const mine = ++seq;
    loading.value = true;
    try {
      const value = await loader();
      if (mine !== seq) return;
      data.value = value;
      error.value = null;
    } catch (err) {
      if (mine === seq) error.value = toApiError(err);
    } finally {
      if (mine === seq) loading.value = false;
    }
  }
  return { data, loading, error, load };
}
