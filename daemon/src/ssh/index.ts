/**
 * SSH administrator access to Linux hosts (the `ssh_admin` settings): sessions whose host key must
 * be in `known_hosts`, commands with bounded output, the access probe. A host is reached only
 * at its verified action target (`../action-target.ts`), never where its agent says it is. Reached through `../remote-shell` (the host access test, the agent update push).
 */
export { connectSshAdmin, probeSshAdmin, SshFailure, type SshAdminCredentials, type SshExecResult, type SshProbeResult, type SshSession, type SshTarget } from './ssh.client.js';
export { verifyHostKey, knownHostsName, type HostKeyVerdict } from './known-hosts.rules.js';
