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

/** Single quotes closed and reopened: the value is safe inside a POSIX shell single-quoted string. */
function shQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Where the Linux push uploads the bundle: a fresh `mktemp -d` folder on the host. */
export const LINUX_UPLOAD_COMMAND = 'umask 077 && d=$(mktemp -d /tmp/sac-agent-update.XXXXXXXX) && cat > "$d/bundle.tar.gz" && printf \'%s\\n\' "$d"';
const UPLOAD_DIR = /^\/tmp\/sac-agent-update\.[A-Za-z0-9]{8}$/;

/** The upload folder the host printed, or null when the answer is not one `mktemp` could make. */
export function uploadDirOf(stdout: string): string | null {
  const dir = stdout.trim();
  return UPLOAD_DIR.test(dir) ? dir : null;
}

/** The line the Linux push script prints the installed version on. */
const VERSION_MARK = 'SAC-AGENT-VERSION:';

/**
 * The shell script SAC runs over SSH to update the Linux agent from a bundle it uploaded to `dir`:
 * check the SHA-256 before anything is unpacked, unpack, install and restart as root
 * (`sudo -n`, never a password prompt), print the version the host now has, and remove the folder
 * whatever happened. `set -e`: the first failing step ends it with that step's exit code.
 */
export function linuxPushScript(o: { dir: string; sha256: string; install: string; restart: string; version: string }): string {
  if (!/^[0-9a-f]{64}$/.test(o.sha256)) throw new Error('sha256 must be 64 hex digits');
  if (!UPLOAD_DIR.test(o.dir)) throw new Error('not an upload folder');
  return [
    'set -e',
    `d=${shQuote(o.dir)}`,
    'trap \'rm -rf "$d" 2>/dev/null || sudo -n rm -rf "$d"\' EXIT',
    'cd "$d"',
    `printf '%s  bundle.tar.gz\\n' ${shQuote(o.sha256)} | sha256sum -c -`,
    'mkdir bundle',
    'tar -xzf bundle.tar.gz -C bundle',
    'cd bundle',
    `sudo -n sh -c ${shQuote(o.install)}`,
    `sudo -n sh -c ${shQuote(o.restart)}`,
    `v=$(sudo -n sh -c ${shQuote(o.version)})`,
    `printf '${VERSION_MARK} %s\\n' "$v"`,
    '',
  ].join('\n');
}

/**
 * The version the push script read back: a bare version, or the script's
 * `SSH_MONITOR_VERSION="…"` line; null when the script printed none.
 */
export function readBackVersion(stdout: string): string | null {
  const line = stdout
    .split('\n')
    .reverse()
    .find((l) => l.startsWith(VERSION_MARK));
  if (line === undefined) return null;
  const value = line
    .slice(VERSION_MARK.length)
    .trim()
    .replace(/^SSH_MONITOR_VERSION=/, '')
    .replace(/^["']|["']$/g, '')
    .trim();
  return value === '' ? null : value.slice(0, 64);
}
