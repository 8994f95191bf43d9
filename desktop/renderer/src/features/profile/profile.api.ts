import { call, trpc } from '../../api/trpc';

/** One's own second factor and Telegram link. */
export const profileApi = {
  totpStatus: () => call(() => trpc.totp.status.query()),
  totpEnroll: () => call(() => trpc.totp.enroll.mutate()),
  totpConfirm: (code: string) => call(() => trpc.totp.confirm.mutate({ code })),
  totpDisable: (code: string) => call(() => trpc.totp.disable.mutate({ code })),
  telegramStatus: () => call(() => trpc.telegram.status.query()),
  telegramLinkCode: () => call(() => trpc.telegram.createLinkCode.mutate()),
  telegramUnlink: () => call(() => trpc.telegram.unlink.mutate()),
};
