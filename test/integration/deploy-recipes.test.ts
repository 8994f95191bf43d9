import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSac, type TestSac } from '../helpers/daemon.js';
import { buildEvent } from '../helpers/events.js';
import { opsTool, runTool, throwawayCert } from '../helpers/ops-tools.js';
import { tempDir } from '../helpers/stores.js';

const DEPLOY = path.resolve(import.meta.dirname, '../../deploy');

/**
 * deploy/nginx.conf (an http-context file, as in /etc/nginx/conf.d/) wrapped in a main config
 * that keeps everything in `dir`: the certificate paths replaced by a throwaway pair and, when
 * given, the daemons' addresses and the listen address replaced by loopback ports.
 */
function nginxConfig(dir: string, cert: { cert: string; key: string }, ports?: { listen: number; daemon: number }): string {
  let site = readFileSync(path.join(DEPLOY, 'nginx.conf'), 'utf8')
    .replace('/etc/ssl/sac/fullchain.pem', cert.cert)
    .replace('/etc/ssl/sac/privkey.pem', cert.key);
  if (ports) {
    site = site.replace(/server 10\.0\.0\.\d+:8080/g, `server 127.0.0.1:${ports.daemon}`).replace(/^(\s*)listen 443 /m, `$1listen 127.0.0.1:${ports.listen} `);
    expect(site).toMatch(new RegExp(`^\\s*listen 127\\.0\\.0\\.1:${ports.listen} ssl`, 'm'));
  }
  writeFileSync(path.join(dir, 'sac-site.conf'), site);
  const main = path.join(dir, 'nginx.conf');
  writeFileSync(
    main,
    [
      `pid ${dir}/nginx.pid;`,
      `error_log ${dir}/error.log warn;`,
      'events { worker_connections 256; }',
      'http {',
      '  access_log off;',
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${dir}/${t}_temp;`),
      `  include ${dir}/sac-site.conf;`,
      '}',
      '',
    ].join('\n'),
  );
  return main;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Resolves once a TLS handshake on the port succeeds; rejects when nginx exits first. */
function tlsReady(port: number, ca: string, proc: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    const exited = () => reject(new Error(`nginx exited with ${proc.exitCode}`));
    proc.once('exit', exited);
    const attempt = () => {
      const socket = tls.connect({ host: '127.0.0.1', port, ca, servername: 'localhost' }, () => {
        socket.end();
        proc.off('exit', exited);
        resolve();
      });
      // Not listening yet: ask again shortly (nginx binds within milliseconds; the hook's timeout bounds it).
      socket.once('error', () => {
        if (proc.exitCode === null) setTimeout(attempt, 20);
      });
    };
    attempt();
  });
}

/** One HTTPS/1.1 request with the throwaway CA; the body parsed as JSON when it is. */
function request(url: string, ca: string, opts: { method?: string; headers?: Record<string, string>; body?: unknown }): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const req = https.request(url, { method: opts.method ?? 'GET', ca, headers: { ...(payload ? { 'Content-Type': 'application/json' } : {}), ...opts.headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: keep the text
        }
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.once('error', reject);
    req.end(payload);
  });
}

describe('deploy recipes, checked by the real tools', () => {
  it('deploy/nginx.conf passes nginx -t', (ctx) => {
    const nginx = opsTool('nginx');
    const openssl = opsTool('openssl');
    if (nginx.path === null || openssl.path === null) return ctx.skip(nginx.skip ?? openssl.skip ?? undefined);
    const dir = tempDir('sac-nginx-t-');
    const check = runTool(nginx.path, ['-t', '-p', dir, '-e', 'stderr', '-c', nginxConfig(dir, throwawayCert(openssl.path, dir))]);
    expect(check.output).toContain('test is successful');
    // nginx 1.25.1 and later warn that `listen ... http2` is deprecated (see the comment in the file); nothing else may warn.
    const warnings = check.output.split('\n').filter((l) => /\[(warn|emerg|alert)\]/.test(l) && !l.includes('"listen ... http2" directive is deprecated'));
    expect(warnings).toEqual([]);
    expect(check.status).toBe(0);
  });

  it('deploy/sac.service passes systemd-analyze verify', (ctx) => {
    const analyze = opsTool('systemd-analyze');
    if (analyze.path === null) return ctx.skip(analyze.skip);
    // The unit names /usr/bin/node (Debian's and NodeSource's path); verify checks it is
    // executable, so the copy checked names the node running this test.
    const dir = tempDir('sac-unit-');
    const unit = path.join(dir, 'sac.service');
    writeFileSync(unit, readFileSync(path.join(DEPLOY, 'sac.service'), 'utf8').replace('/usr/bin/node ', `${process.execPath} `));
    const check = runTool(analyze.path, ['verify', '--man=no', unit]);
    expect(check.output).toBe('');
    expect(check.status).toBe(0);
  });

  it('deploy/prometheus-rules.yml passes promtool check rules and its tests', (ctx) => {
    const promtool = opsTool('promtool');
    if (promtool.path === null) return ctx.skip(promtool.skip);
    const check = runTool(promtool.path, ['check', 'rules', path.join(DEPLOY, 'prometheus-rules.yml')]);
    expect(check.output).toMatch(/SUCCESS: \d+ rules found/);
    expect(check.status).toBe(0);
    // The rule tests name the rules file relative to themselves: run them from a copy beside it.
    const dir = tempDir('sac-rules-');
    copyFileSync(path.join(DEPLOY, 'prometheus-rules.yml'), path.join(dir, 'prometheus-rules.yml'));
    copyFileSync(path.resolve(import.meta.dirname, '../fixtures/prometheus-rules.test.yml'), path.join(dir, 'prometheus-rules.test.yml'));
    const tests = runTool(promtool.path, ['test', 'rules', path.join(dir, 'prometheus-rules.test.yml')]);
    expect(tests.output).toContain('SUCCESS');
    expect(tests.status).toBe(0);
  });

  it('deploy/grafana-dashboard.json queries only series the daemon exposes', async () => {
    const dashboard = JSON.parse(readFileSync(path.join(DEPLOY, 'grafana-dashboard.json'), 'utf8')) as { panels: { targets?: { expr: string }[] }[] };
    const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
    expect(exprs.length).toBeGreaterThan(5);
    const sac = await startTestSac('sqlite', { SAC_METRICS_ACCESS: 'public' });
    try {
      const text = await (await fetch(`${sac.url}/metrics`)).text();
      const exposed = new Set(text.split('\n').filter((l) => l.startsWith('# TYPE ')).flatMap((l) => {
        const [, , name, type] = l.split(' ');
        return type === 'histogram' ? [`${name}_bucket`, `${name}_sum`, `${name}_count`] : [name];
      }));
      for (const expr of exprs) {
        for (const name of expr.match(/\b(sac|process|nodejs)_[a-z0-9_]+/g) ?? []) expect(exposed.has(name), `${name} in ${expr}`).toBe(true);
      }
    } finally {
      await sac.close();
    }
  });

  describe('through nginx (TLS, HTTP/2) to a daemon', () => {
    let sac: TestSac;
    let proc: ChildProcess | undefined;
    let base = '';
    let ca = '';
    let skip: string | null = null;
    beforeAll(async () => {
      const nginx = opsTool('nginx');
      const openssl = opsTool('openssl');
      if (nginx.path === null || openssl.path === null) {
        skip = nginx.skip ?? openssl.skip;
        return;
      }
      sac = await startTestSac('sqlite', { SAC_TRUSTED_PROXIES: '127.0.0.1' });
      const dir = tempDir('sac-nginx-');
      // Run as root (CI), nginx's workers run as an unprivileged account: they need to reach the temp dirs.
      chmodSync(dir, 0o755);
      const cert = throwawayCert(openssl.path, dir);
      ca = readFileSync(cert.cert, 'utf8');
      // A port can be taken between finding it free and nginx binding it: then nginx exits, and another is tried.
      for (let attempt = 1; ; attempt++) {
        const listen = await freePort();
        const conf = nginxConfig(dir, cert, { listen, daemon: Number(new URL(sac.url).port) });
        proc = spawn(nginx.path, ['-p', dir, '-e', 'stderr', '-c', conf, '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        proc.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
        try {
          await tlsReady(listen, ca, proc);
          base = `https://127.0.0.1:${listen}`;
          return;
        } catch (err) {
          if (!stderr.includes('Address already in use') || attempt === 5) throw new Error(`nginx did not start: ${stderr}`, { cause: err });
        }
      }
    });
    afterAll(async () => {
      if (proc && proc.exitCode === null) {
        const exited = new Promise((r) => proc!.once('exit', r));
        proc.kill('SIGQUIT');
        await exited;
      }
      await sac?.close();
    });

    it('signs in, streams live (HTTP/2) and ingests, with the client address forwarded', async (ctx) => {
      if (skip) return ctx.skip(skip);
      // The address a first proxy in front of nginx would have forwarded: nginx appends its client to it.
      const login = await request(`${base}/api/v1/auth/login`, ca, {
        method: 'POST',
        headers: { 'X-Forwarded-For': '203.0.113.7' },
        body: { username: sac.adminUsername, password: sac.adminPassword },
      });
      expect(login.status).toBe(200);
      const token = (login.body as { token: string }).token;

      const session = http2.connect(base, { ca, servername: 'localhost' });
      try {
        const stream = session.request({ ':path': '/api/v1/stream/events', authorization: `Bearer ${token}` });
        const status = new Promise<number>((resolve) => stream.once('response', (h) => resolve(Number(h[':status']))));
        let text = '';
        const waiters: (() => void)[] = [];
        stream.setEncoding('utf8');
        stream.on('data', (c: string) => {
          text += c;
          for (const w of waiters.splice(0)) w();
        });
        const seen = (needle: string) =>
          new Promise<void>((resolve) => {
            const check = () => (text.includes(needle) ? resolve() : waiters.push(check));
            check();
          });
        expect(await status).toBe(200);
        await seen('event: counters');

        const event = buildEvent();
        const ingest = await request(`${base}/api/v1/events`, ca, { method: 'POST', headers: { Authorization: `Bearer ${sac.apiKey}` }, body: event });
        expect(ingest.status).toBe(201);
        const replay = await request(`${base}/api/v1/events`, ca, { method: 'POST', headers: { Authorization: `Bearer ${sac.apiKey}` }, body: event });
        expect(replay.status).toBe(409);
        await seen(`"event_id":"${event.event_id}"`);
        stream.close();
      } finally {
        session.close();
      }

      // nginx set X-Forwarded-For and the daemon, trusting 127.0.0.1, took the address before it.
      const audit = await request(`${base}/api/v1/audit?action=auth.login_succeeded`, ca, { headers: { Authorization: `Bearer ${token}` } });
      expect(audit.status).toBe(200);
      expect((audit.body as { entries: { ip: string | null }[] }).entries.map((e) => e.ip)).toContain('203.0.113.7');
    });
  });
});
