import { defineStore } from 'pinia';
import { shallowRef } from 'vue';
import type { TelegramLinkCode, TelegramLinkStatus, TotpEnrollment, TotpStatus } from '../../../../../shared/src/mfa.schema';
import { useResource } from '../../composables/useResource';
import { profileApi } from './profile.api';

/** One's own second factor (status, enrolment, recovery codes) and Telegram link. */
export const useProfileStore = defineStore('profile', () => {
  const status = useResource(async () => {
    const [totp, telegram] = await Promise.all([profileApi.totpStatus(), profileApi.telegramStatus()]);
    return { totp, telegram };
  });
  const enrollment = shallowRef<TotpEnrollment | null>(null);
  const recoveryCodes = shallowRef<string[] | null>(null);
  const linkCode = shallowRef<TelegramLinkCode | null>(null);

  function patch(next: { totp?: TotpStatus; telegram?: TelegramLinkStatus }) {
    if (status.data.value) status.data.value = { ...status.data.value, ...next };
  }
  async function startEnroll() {
    recoveryCodes.value = null;
    enrollment.value = await profileApi.totpEnroll();
  }
  async function confirmEnroll(code: string) {
    recoveryCodes.value = (await profileApi.totpConfirm(code)).recovery_codes;
    enrollment.value = null;
    patch({ totp: await profileApi.totpStatus() });
  }
  async function disableTotp(code: string) {
    patch({ totp: await profileApi.totpDisable(code) });
    recoveryCodes.value = null;
  }
  async function newLinkCode() {
    linkCode.value = await profileApi.telegramLinkCode();
  }
  async function unlink() {
    patch({ telegram: await profileApi.telegramUnlink() });
    linkCode.value = null;
  }
  return { status, enrollment, recoveryCodes, linkCode, startEnroll, confirmEnroll, disableTotp, newLinkCode, unlink };
});
