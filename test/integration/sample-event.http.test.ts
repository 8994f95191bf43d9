import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSac, type TestSac } from '../helpers/daemon.js';

/** The README's first event: `curl --data-binary @docs/sample-event.json` sends these bytes as they are. */
describe('docs/sample-event.json', () => {
  let t: TestSac;
  beforeAll(async () => {
    t = await startTestSac('sqlite');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is accepted as written (201), and a second send is the duplicate the README describes (409)', async () => {
    const body = readFileSync(new URL('../../docs/sample-event.json', import.meta.url));
    const send = () =>
      fetch(`${t.url}/api/v1/events`, { method: 'POST', headers: { Authorization: `Bearer ${t.apiKey}`, 'Content-Type': 'application/json' }, body });
    const first = await send();
    expect(first.status, await first.text()).toBe(201);
    expect((await send()).status).toBe(409);
  });
});
