import { defineStore } from 'pinia';
import { shallowRef } from 'vue';
import { useResource } from '../../composables/useResource';
import { settingsApi } from '../settings/settings.api';
import { deliveriesApi, type DeliveryFilter } from './deliveries.api';

/** The notification delivery log (admin) with "retry now", and how many push subscriptions exist. */
export const useDeliveriesStore = defineStore('deliveries', () => {
  const filter = shallowRef<DeliveryFilter>({ limit: 200 });
  const list = useResource(() => deliveriesApi.list(filter.value));
  /** Push subscriptions (browsers and phones): push can deliver only when there is one. */
  const pushSubscriptions = useResource(() => settingsApi.pushSubscriptions());
  async function load(f: DeliveryFilter) {
    filter.value = f;
    await list.load();
  }
  async function retry(id: string) {
    await deliveriesApi.retry(id);
    await list.load();
  }
  return { filter, list, pushSubscriptions, load, retry };
});
