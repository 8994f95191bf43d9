/** Agent API keys: generation, hashing, verification, bootstrap, and the admin operations. */
export { ApiKeyService, apiKeyPrefix, generateApiKey, hashApiKey, type ApiKeyInfo } from './api-keys.service.js';
export { ApiKeysAdmin } from './api-keys.admin.js';
