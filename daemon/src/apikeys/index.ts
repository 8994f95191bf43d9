/** Agent API keys: generation, hashing, verification, bootstrap. */
export { ApiKeyService, apiKeyPrefix, generateApiKey, hashApiKey, type ApiKeyInfo } from './api-keys.service.js';
