import { describe, expect, it } from 'vitest';
import { windowsPushScript } from './agent-push.rules.js';

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
