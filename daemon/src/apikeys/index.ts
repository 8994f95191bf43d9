/** Agent API keys: generation, hashing, verification, bootstrap, host binding, and the admin operations. */
export { ApiKeyService, apiKeyPrefix, generateApiKey, hashApiKey, type ApiKeyInfo, type KeyBinding } from './api-keys.service.js';
export { bindingMismatch, KeyBindingGuard } from './key-binding.js';
export { ApiKeysAdmin } from './api-keys.admin.js';
export { createApiKeysRoutes } from './api-keys.routes.js';
export { apiKeysRouter } from './api-keys.router.js';
