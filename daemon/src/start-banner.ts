import type { RunningSac } from './sac.js';

/**
 * The start-up lines for the operator, written to stderr (stdout is the JSON log stream). The
 * first-start secrets appear only when `showSecrets` (stderr is a terminal someone is looking
 * at); otherwise the lines say which owner-only file holds each, so a service manager's journal
 * never keeps them.
 */
export function startBanner(
  sac: Pick<RunningSac, 'url' | 'store' | 'generatedApiKey' | 'apiKeyFile' | 'generatedAdminPassword' | 'adminPasswordFile'>,
  adminUsername: string,
  showSecrets: boolean,
): string {
  const lines = [`SAC is running at ${sac.url}/ (store: ${sac.store.kind})`];
  if (sac.generatedApiKey) {
    lines.push(
      showSecrets ? `Bootstrap agent API key (shown once): ${sac.generatedApiKey}` : 'Bootstrap agent API key generated',
      `  ${showSecrets ? 'also ' : ''}saved to ${sac.apiKeyFile} (mode 0600)`,
    );
  }
  if (sac.generatedAdminPassword) {
    lines.push(
      showSecrets ? `Console admin "${adminUsername}", password (shown once): ${sac.generatedAdminPassword}` : `Console admin "${adminUsername}" created with a generated password`,
      `  ${showSecrets ? 'also ' : ''}saved to ${sac.adminPasswordFile} (mode 0600)`,
    );
  }
  return `\n${lines.join('\n')}\n\n`;
}
