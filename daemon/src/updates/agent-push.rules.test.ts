import { describe, expect, it } from 'vitest';
import { linuxPushScript, readBackVersion, uploadDirOf, windowsPushScript } from './agent-push.rules.js';

describe('the Windows push script', () => {
  const sha = 'ab'.repeat(32);

  it('downloads, checks the hash before anything runs, unpacks and deploys', () => {
    const script = windowsPushScript({ url: 'https://sac.example/api/v1/agent/rdp-bundle/tok', sha256: sha, jobId: 'job-1' });
    const lines = script.split('\r\n');
    const at = (needle: string) => lines.findIndex((l) => l.includes(needle));
    expect(lines[0]).toBe("$ErrorActionPreference = 'Stop'");
    expect(at("-Uri 'https://sac.example/api/v1/agent/rdp-bundle/tok'")).toBeGreaterThan(0);
    expect(at(`-ne '${sha}'`)).toBeGreaterThan(at('Invoke-WebRequest'));
    expect(at('Expand-Archive')).toBeGreaterThan(at(`-ne '${sha}'`));
    expect(at('Deploy-LoginMonitor.ps1') ).toBeGreaterThan(at('Expand-Archive'));
    expect(script).toContain('-SourceShareRoot $dir');
  });

  it('quotes the URL so it cannot end the string, and refuses a malformed hash', () => {
    const script = windowsPushScript({ url: "https://x/'; Remove-Item C:\\ -Recurse; '", sha256: sha, jobId: 'j' });
    expect(script).toContain("-Uri 'https://x/''; Remove-Item C:\\ -Recurse; '''");
    expect(() => windowsPushScript({ url: 'https://x', sha256: 'nope', jobId: 'j' })).toThrow(/sha256/);
  });
});

describe('the Linux push script', () => {
  const sha = 'cd'.repeat(32);
  const dir = '/tmp/sac-agent-update.AbCd1234';
  const base = { dir, sha256: sha, install: 'sh ./install.sh', restart: 'systemctl restart ssh-monitor', version: 'ssh-monitor --version' };

  it('checks the hash before unpacking, installs and restarts with sudo -n, then prints the version', () => {
    const lines = linuxPushScript(base).split('\n');
    const at = (needle: string) => lines.findIndex((l) => l.includes(needle));
    expect(lines[0]).toBe('set -e');
    expect(at('sha256sum -c')).toBeGreaterThan(0);
    expect(at('tar -xzf')).toBeGreaterThan(at('sha256sum -c'));
    expect(at("sudo -n sh -c 'sh ./install.sh'")).toBeGreaterThan(at('tar -xzf'));
    expect(at("sudo -n sh -c 'systemctl restart ssh-monitor'")).toBeGreaterThan(at('install.sh'));
    expect(at('SAC-AGENT-VERSION')).toBeGreaterThan(at('systemctl'));
    expect(at('trap')).toBeLessThan(at('cd "$d"'));
  });

  it('quotes the configured commands, and refuses a malformed hash or a folder mktemp did not make', () => {
    expect(linuxPushScript({ ...base, restart: "echo 'x'; reboot" })).toContain(`sudo -n sh -c 'echo '\\''x'\\''; reboot'`);
    expect(() => linuxPushScript({ ...base, sha256: 'nope' })).toThrow(/sha256/);
    expect(() => linuxPushScript({ ...base, dir: '/; rm -rf /' })).toThrow(/upload folder/);
    expect(uploadDirOf(`${dir}\n`)).toBe(dir);
    expect(uploadDirOf('/etc')).toBeNull();
  });

  it('reads back a bare version or the script line, and nothing when the script printed none', () => {
    expect(readBackVersion('installed\nSAC-AGENT-VERSION: 1.1.3-ipset\n')).toBe('1.1.3-ipset');
    expect(readBackVersion('SAC-AGENT-VERSION: SSH_MONITOR_VERSION="1.1.3-ipset"\n')).toBe('1.1.3-ipset');
    expect(readBackVersion('SAC-AGENT-VERSION: \n')).toBeNull();
    expect(readBackVersion('done\n')).toBeNull();
  });
});
