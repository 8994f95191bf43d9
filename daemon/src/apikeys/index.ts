/** Agent API keys: generation, hashing, verification, bootstrap, host binding, which installations a key speaks for, and the admin operations. */
export { ApiKeyService, apiKeyPrefix, generateApiKey, hashApiKey, type ApiKeyInfo, type KeyBinding } from './api-keys.service.js';
export { bindingMismatch, KeyBindingGuard } from './key-binding.js';
export { KeyAgents, requestKey } from './key-agents.js';
export { ApiKeysAdmin } from './api-keys.admin.js';
export { apiKeysOperations } from './api-keys.operations.js';
