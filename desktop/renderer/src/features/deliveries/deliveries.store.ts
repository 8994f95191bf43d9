import { defineStore } from 'pinia';
import { shallowRef } from 'vue';
import { useResource } from '../../composables/useResource';
import { deliveriesApi, type DeliveryFilter } from './deliveries.api';

/** The notification delivery log (admin) with "retry now". */
export const useDeliveriesStore = defineStore('deliveries', () => {
  const filter = shallowRef<DeliveryFilter>({ limit: 200 });
  const list = useResource(() => deliveriesApi.list(filter.value));
  async function load(f: DeliveryFilter) {
    filter.value = f;
    await list.load();
  }
  async function retry(id: string) {
    await deliveriesApi.retry(id);
    await list.load();
  }
  return { filter, list, load, retry };
});
