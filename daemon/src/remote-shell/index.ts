/**
 * The remote shell shared by remote actions and agent update pushes: one interface
 * (`RemoteShell`: open a session and run scripts, test administrator access) with adapters over
 * the WinRM client (`winRmShell`, Windows) and the SSH client (`sshShell`, Linux), each reading its
 * administrator credentials from the settings at every call.
 */
export { ShellFailure, type AccessProbe, type LinuxShell, type RemoteShell, type ShellResult, type ShellRunOptions, type ShellSession, type WindowsShell } from './remote-shell.js';
export { winRmShell } from './winrm.shell.js';
export { sshShell } from './ssh.shell.js';
