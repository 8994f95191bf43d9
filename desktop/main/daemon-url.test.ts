import { describe, expect, it } from 'vitest';
import { validateDaemonUrl } from './daemon-url.js';

describe('validateDaemonUrl', () => {
  it.each([
    ['https://sac.example.org', 'https://sac.example.org'],
    ['  https://sac.example.org/  ', 'https://sac.example.org'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
    ['https://host.example/sac/', 'https://host.example/sac'],
    ['https://host.example/sac//', 'https://host.example/sac'],
    ['HTTPS://SAC.Example.ORG:443/', 'https://sac.example.org'],
    ['http://[::1]:9000/', 'http://[::1]:9000'],
    ['http://localhost:8080', 'http://localhost:8080'],
    ['http://127.1.2.3:8080', 'http://127.1.2.3:8080'],
  ])('accepts %s as %s', (input, url) => {
    expect(validateDaemonUrl(input)).toEqual({ ok: true, url });
  });

  it.each([
    ['', /Enter/],
    ['sac.example.org', /Not a URL/],
    ['ftp://sac.example.org', /http/],
    ['file:///etc/passwd', /http/],
    ['javascript:alert(1)', /http/],
    ['https://admin:secret@sac.example.org', /user name or password/],
    ['https://sac.example.org/?token=x', /query/],
    ['https://sac.example.org/?', /query/],
    ['https://sac.example.org/#/login', /fragment/],
    [`https://sac.example.org/${'a'.repeat(2100)}`, /longer/],
    // Plain http only to this machine: elsewhere the password and tokens would travel in clear.
    ['http://sac.example.org', /https/],
    ['http://10.0.0.5:8080', /https/],
    ['http://127.0.0.1.evil.example', /https/],
    ['http://localhost.evil.example', /https/],
  ])('rejects %s', (input, reason) => {
    const r = validateDaemonUrl(input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(reason);
  });
});
