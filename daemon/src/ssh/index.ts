/**
 * SSH administrator access to Linux hosts (the `ssh_admin` settings): sessions whose host key must
 * be in `known_hosts`, commands with bounded output, the access probe, and the addresses a host
 * is tried by. Reached through `../remote-shell` (the host access test, the agent update push).
 */
export { connectSshAdmin, probeSshAdmin, SshFailure, type SshAdminCredentials, type SshExecResult, type SshProbeResult, type SshSession } from './ssh.client.js';
export { verifyHostKey, knownHostsName, type HostKeyVerdict } from './known-hosts.rules.js';
export { presentAddress, sshTargets } from './targets.js';
