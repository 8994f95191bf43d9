import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/**
 * A loopback SMTP server (smtp-server) that requires AUTH, parses every message with mailparser
 * and keeps it. `failNext` answers 451 (temporary) that many times; `down` answers 421.
 */
export async function startSmtpPeer(user: string, pass: string) {
  const mails: (ParsedMail & { envelopeTo: string[] })[] = [];
  const state = { down: false, failNext: 0, rejected: 0 };
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === user && auth.password === pass) cb(null, { user });
      else cb(new Error('Invalid username or password'));
    },
    onData(stream, session, cb) {
      simpleParser(stream)
        .then((mail) => {
          if (state.down || state.failNext > 0) {
            if (state.failNext > 0) state.failNext--;
            state.rejected++;
            const err = new Error('Mailbox temporarily unavailable') as Error & { responseCode: number };
            err.responseCode = state.down ? 421 : 451;
            return cb(err);
          }
          mails.push(Object.assign(mail, { envelopeTo: session.envelope.rcptTo.map((r) => r.address) }));
          cb();
        })
        .catch(cb);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://${encodeURIComponent(user)}:${encodeURIComponent(pass)}@127.0.0.1:${port}`,
    mails,
    state,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type SmtpPeer = Awaited<ReturnType<typeof startSmtpPeer>>;
