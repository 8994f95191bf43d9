import http from 'node:http';
import { parseEvent } from '../../shared/src/index.js';

/**
 * The yardstick of `bench:ingest`: a bare node:http server that reads the body, parses the JSON,
 * validates it with SAC's own zod schema (shared/) and answers 201 — nothing stored, no auth.
 * Listens on 127.0.0.1:$PORT and prints `listening <port>` when ready.
 */
const server = http.createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    let status = 201;
    let body: string;
    try {
      const parsed = parseEvent(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      if (parsed.ok) body = JSON.stringify({ event_id: parsed.event.event_id, status: 'created' });
      else {
        status = 422;
        body = JSON.stringify({ error: { code: 'event/validation_failed', details: parsed.issues } });
      }
    } catch {
      status = 422;
      body = '{"error":{"code":"event/validation_failed"}}';
    }
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as { port: number }).port}\n`);
});
