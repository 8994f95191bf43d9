/** Single quotes doubled: the value is safe inside a PowerShell single-quoted string. */
function psQuote(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/**
 * The PowerShell SAC runs over WinRM to update the Windows agent itself, as the agent's deploy
 * documentation describes: download the bundle from SAC, check its SHA-256, unpack it, and run
 * its `Deploy-LoginMonitor.ps1 -SourceShareRoot <folder>`. Every step stops the script on error,
 * so a failed download or a hash mismatch never runs anything.
 */
export function windowsPushScript(o: { url: string; sha256: string; jobId: string }): string {
  if (!/^[0-9a-f]{64}$/.test(o.sha256)) throw new Error('sha256 must be 64 hex digits');
  const name = `sac-agent-update-${o.jobId.replace(/[^A-Za-z0-9-]/g, '')}`;
  return [
    "$ErrorActionPreference = 'Stop'",
    '$ProgressPreference = \'SilentlyContinue\'',
    '[Net.ServicePointManager]::SecurityProtocol = [Net.ServicePointManager]::SecurityProtocol -bor [Net.SecurityProtocolType]::Tls12',
    `$zip = Join-Path $env:TEMP ${psQuote(`${name}.zip`)}`,
    `$dir = Join-Path $env:TEMP ${psQuote(name)}`,
    `Invoke-WebRequest -UseBasicParsing -Uri ${psQuote(o.url)} -OutFile $zip`,
    '$hash = (Get-FileHash -Algorithm SHA256 -Path $zip).Hash.ToLowerInvariant()',
    `if ($hash -ne ${psQuote(o.sha256)}) { throw "bundle hash mismatch: $hash" }`,
    'if (Test-Path $dir) { Remove-Item -Recurse -Force $dir }',
    'Expand-Archive -Path $zip -DestinationPath $dir -Force',
    "& (Join-Path $dir 'Deploy-LoginMonitor.ps1') -SourceShareRoot $dir",
    "Write-Output 'SAC agent update deployed'",
  ].join('\r\n');
}
