/**
 * The settings store: `SettingsService.get(category)` for features (typed, secrets in clear,
 * database over environment), `view`/`update`/`reset` for admins (secrets write-only), `onChange`.
 * `SecretBox` and `loadMasterKey` encrypt secrets at rest.
 */
export { SettingsService } from './settings.service.js';
export { loadMasterKey, MASTER_KEY_FILE, SecretBox } from './secret-box.js';
export { settingsOperations } from './settings.operations.js';
