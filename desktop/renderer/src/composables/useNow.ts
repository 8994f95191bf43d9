import { ref, type Ref } from 'vue';

const now = ref(Date.now());
let started = false;

/** A clock ticking every 15 s, shared by every relative timestamp. */
export function useNow(): Ref<number> {
  if (!started) {
    started = true;
    setInterval(() => (now.value = Date.now()), 15_000);
  }
  return now;
}
