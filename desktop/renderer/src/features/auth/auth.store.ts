import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { SessionUser } from '../../../../../shared/src/roles';
import { ApiError, onUnauthorized, session } from '../../api/http';
import { platform } from '../../platform';
import type { LoginChallenge } from '../../../../../shared/src/mfa.schema';
import { authApi, renewDelayMs, tokenExpiry, type LoginResult } from './auth.api';

/**
 * The signed-in user and their session: login, restore on reload (or in a new tab, from the web
 * build's session cookie), renewal before expiry, and sign-out when the daemon stops accepting the
 * session (401 on any call). Electron keeps a bearer token through the platform; the web build
 * keeps none (`platform.tokens` is null): the cookie is sent by the browser and writes carry the
 * session's CSRF token.
 */
export const useAuthStore = defineStore('auth', () => {
  const user = ref<SessionUser | null>(null);
  const expiresAt = ref<number | null>(null);
  /** Set when the session ended without the user signing out (shown on the login page). */
  const endedReason = ref<'expired' | null>(null);
  let renewTimer: ReturnType<typeof setTimeout> | null = null;

  const isAdmin = computed(() => user.value?.role === 'admin');
  const signedIn = computed(() => user.value !== null);

  function clearTimer() {
    if (renewTimer) clearTimeout(renewTimer);
    renewTimer = null;
  }

  function schedule() {
    clearTimer();
    if (expiresAt.value === null) return;
    renewTimer = setTimeout(() => void renew(), renewDelayMs(expiresAt.value, Date.now()));
  }

  /** Takes a new session (login, renewal, own password change) and schedules its renewal. */
  async function accept(result: LoginResult) {
    if (platform.tokens) {
      session.set(result.token);
      await platform.tokens.set(result.token);
    } else {
      session.setCsrf(result.csrf_token);
    }
    user.value = result.user;
    const parsed = Date.parse(result.expires_at);
    expiresAt.value = Number.isFinite(parsed) ? parsed : tokenExpiry(result.token);
    endedReason.value = null;
    schedule();
  }

  /** Signs in, or answers the second step (TOTP code or enrolment) the password step asked for. */
  async function login(username: string, password: string): Promise<LoginChallenge | null> {
    const result = await authApi.login(username, password);
    if ('second_factor' in result) return result;
    await accept(result);
    return null;
  }

  async function renew() {
    try {
      await accept(await authApi.renew());
    } catch (err) {
      // Unreachable server: try again in a minute while the token is still valid.
      if (err instanceof ApiError && err.status === 0 && expiresAt.value !== null && expiresAt.value > Date.now() + 60_000) {
        renewTimer = setTimeout(() => void renew(), 60_000);
      } else if (!(err instanceof ApiError && err.status === 401)) {
        await end('expired');
      }
    }
  }

  /** Restores the session saved by the platform (page reload, app restart) or the browser's session cookie (any tab). */
  async function restore(): Promise<boolean> {
    if (!platform.tokens) return restoreFromCookie();
    const token = await platform.tokens.get();
    if (!token) return false;
    session.set(token);
    try {
      const me = await authApi.me();
      user.value = 'user' in me ? me.user : me;
      expiresAt.value = tokenExpiry(token);
      schedule();
      return true;
    } catch (err) {
      session.set(null);
      // Only the daemon's 401 ends the saved session: a request cut short by leaving the page, or
      // a daemon briefly unreachable, must not sign the user out of the next page load.
      if (err instanceof ApiError && err.status === 401) await platform.tokens.clear();
      return false;
    }
  }

  async function restoreFromCookie(): Promise<boolean> {
    // The daemon sets a readable companion of its HttpOnly cookie: without it there is nothing to
    // restore, and asking would only be answered 401.
    if (!/(?:^|;\s*)sac_signed_in=1(?:;|$)/.test(document.cookie)) return false;
    try {
      const current = await authApi.session();
      session.setCsrf(current.csrf_token);
      user.value = current.user;
      expiresAt.value = Date.parse(current.expires_at);
      schedule();
      return true;
    } catch (err) {
      // A cookie the daemon no longer accepts: the sign-in page, and no asking on the next load.
      // An unreachable daemon keeps the cookie for the next load.
      if (err instanceof ApiError && err.status === 401) document.cookie = 'sac_signed_in=; Path=/; Max-Age=0; SameSite=Strict';
      return false;
    }
  }

  async function end(reason: 'expired' | null) {
    clearTimer();
    session.set(null);
    session.setCsrf(null);
    user.value = null;
    expiresAt.value = null;
    endedReason.value = reason;
    await platform.tokens?.clear();
  }

  async function logout() {
    try {
      if (user.value) await authApi.logout();
    } catch {
      // Signed out here either way; an unreachable daemon lets the token expire on its own.
    }
    await end(null);
  }

  onUnauthorized(() => {
    if (user.value) void end('expired');
  });

  /** The second sign-in steps: the authenticator to enrol, its first code, or a TOTP / recovery code. */
  const loginEnroll = (ticket: string) => authApi.loginEnroll(ticket);
  async function loginEnrollConfirm(ticket: string, code: string): Promise<string[]> {
    const done = await authApi.loginEnrollConfirm(ticket, code);
    await accept(done);
    return done.recovery_codes;
  }
  async function loginCode(ticket: string, code: string) {
    await accept(await authApi.loginCode(ticket, code));
  }
  async function changePassword(current: string, next: string) {
    await accept(await authApi.changePassword(current, next));
  }

  return { user, expiresAt, endedReason, isAdmin, signedIn, login, renew, restore, logout, end, adopt: accept, loginEnroll, loginEnrollConfirm, loginCode, changePassword };
});
