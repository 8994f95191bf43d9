import { computed, ref } from 'vue';

const inFlight = ref(0);
const slow = ref(false);
let timer: ReturnType<typeof setTimeout> | null = null;

/** True while a request has been running for more than SLOW_MS: the top progress bar shows then. */
export const busy = computed(() => inFlight.value > 0 && slow.value);
const SLOW_MS = 300;

/** Runs a request while counting it, so the shell can show progress for anything slow. */
export async function tracked<T>(work: () => Promise<T>): Promise<T> {
  inFlight.value += 1;
  if (inFlight.value === 1) {
    slow.value = false;
    timer = setTimeout(() => (slow.value = true), SLOW_MS);
  }
  try {
    return await work();
  } finally {
    inFlight.value -= 1;
    if (inFlight.value === 0) {
      if (timer) clearTimeout(timer);
      slow.value = false;
    }
  }
}
