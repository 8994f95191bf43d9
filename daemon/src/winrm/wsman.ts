import { randomUUID } from 'node:crypto';

/*
 * The WS-Management shell messages (MS-WSMV 3.1.4: Create, Command, Receive, Signal, Delete)
 * as Windows Remote Shell expects them, and the few reply fields SAC reads. Replies are read with
 * prefix-agnostic patterns: servers choose their own namespace prefixes.
 */

const NS = {
  s: 'http://www.w3.org/2003/05/soap-envelope',
  a: 'http://schemas.xmlsoap.org/ws/2004/08/addressing',
  w: 'http://schemas.dmtf.org/wbem/wsman/1/wsman.xsd',
  p: 'http://schemas.microsoft.com/wbem/wsman/1/wsman.xsd',
  rsp: 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell',
};
const SHELL_URI = 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/cmd';
export const ACTIONS = {
  create: 'http://schemas.xmlsoap.org/ws/2004/09/transfer/Create',
  delete: 'http://schemas.xmlsoap.org/ws/2004/09/transfer/Delete',
  command: 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/Command',
  receive: 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/Receive',
  signal: 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/Signal',
} as const;
const SIGNAL_TERMINATE = 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/signal/terminate';
/** The WS-Man fault code of a Receive that waited its whole OperationTimeout without output. */
export const RECEIVE_TIMED_OUT = '2150858793';

export function xmlEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

function xmlUnescape(s: string): string {
  return s.replace(/&(lt|gt|quot|apos|amp|#\d+|#x[0-9a-f]+);/gi, (_, e: string) => {
    const named: Record<string, string> = { lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' };
    if (named[e]) return named[e];
    const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : `&${e};`;
  });
}

interface EnvelopeInput {
  to: string;
  action: string;
  operationTimeoutS: number;
  shellId?: string;
  options?: Record<string, string>;
  body: string;
}

function envelope(input: EnvelopeInput): { xml: string; messageId: string } {
  const messageId = `uuid:${randomUUID().toUpperCase()}`;
  const selector = input.shellId ? `<w:SelectorSet><w:Selector Name="ShellId">${xmlEscape(input.shellId)}</w:Selector></w:SelectorSet>` : '';
  const options = input.options
    ? `<w:OptionSet>${Object.entries(input.options)
        .map(([k, v]) => `<w:Option Name="${k}">${xmlEscape(v)}</w:Option>`)
        .join('')}</w:OptionSet>`
    : '';
  const xml =
    `<?xml version="1.0" encoding="utf-8"?>` +
    `<s:Envelope xmlns:s="${NS.s}" xmlns:a="${NS.a}" xmlns:w="${NS.w}" xmlns:p="${NS.p}" xmlns:rsp="${NS.rsp}">` +
    `<s:Header>` +
    `<a:To>${xmlEscape(input.to)}</a:To>` +
    `<a:ReplyTo><a:Address s:mustUnderstand="true">http://schemas.xmlsoap.org/ws/2004/08/addressing/role/anonymous</a:Address></a:ReplyTo>` +
    `<w:MaxEnvelopeSize s:mustUnderstand="true">153600</w:MaxEnvelopeSize>` +
    `<a:MessageID>${messageId}</a:MessageID>` +
    `<w:Locale xml:lang="en-US" s:mustUnderstand="false"/>` +
    `<p:DataLocale xml:lang="en-US" s:mustUnderstand="false"/>` +
    `<w:OperationTimeout>PT${input.operationTimeoutS}S</w:OperationTimeout>` +
    `<w:ResourceURI s:mustUnderstand="true">${SHELL_URI}</w:ResourceURI>` +
    `<a:Action s:mustUnderstand="true">${input.action}</a:Action>` +
    selector +
    options +
    `</s:Header><s:Body>${input.body}</s:Body></s:Envelope>`;
  return { xml, messageId };
}

export function createShellMessage(to: string, operationTimeoutS: number, codepage: number): string {
  return envelope({
    to,
    action: ACTIONS.create,
    operationTimeoutS,
    options: { WINRS_NOPROFILE: 'FALSE', WINRS_CODEPAGE: String(codepage) },
    body: '<rsp:Shell><rsp:InputStreams>stdin</rsp:InputStreams><rsp:OutputStreams>stdout stderr</rsp:OutputStreams></rsp:Shell>',
  }).xml;
}

/** `skipCmdShell` starts the program directly, without cmd.exe and its 8191-character line limit. */
export function commandMessage(to: string, operationTimeoutS: number, shellId: string, command: string, args: readonly string[], skipCmdShell = false): string {
  const argXml = args.map((a) => `<rsp:Arguments>${xmlEscape(a)}</rsp:Arguments>`).join('');
  return envelope({
    to,
    action: ACTIONS.command,
    operationTimeoutS,
    shellId,
    options: { WINRS_CONSOLEMODE_STDIN: 'TRUE', WINRS_SKIP_CMD_SHELL: skipCmdShell ? 'TRUE' : 'FALSE' },
    body: `<rsp:CommandLine><rsp:Command>${xmlEscape(command)}</rsp:Command>${argXml}</rsp:CommandLine>`,
  }).xml;
}

export function receiveMessage(to: string, operationTimeoutS: number, shellId: string, commandId: string): string {
  return envelope({
    to,
    action: ACTIONS.receive,
    operationTimeoutS,
    shellId,
    body: `<rsp:Receive><rsp:DesiredStream CommandId="${xmlEscape(commandId)}">stdout stderr</rsp:DesiredStream></rsp:Receive>`,
  }).xml;
}

export function signalMessage(to: string, operationTimeoutS: number, shellId: string, commandId: string): string {
  return envelope({
    to,
    action: ACTIONS.signal,
    operationTimeoutS,
    shellId,
    body: `<rsp:Signal CommandId="${xmlEscape(commandId)}"><rsp:Code>${SIGNAL_TERMINATE}</rsp:Code></rsp:Signal>`,
  }).xml;
}

export function deleteShellMessage(to: string, operationTimeoutS: number, shellId: string): string {
  return envelope({ to, action: ACTIONS.delete, operationTimeoutS, shellId, body: '' }).xml;
}

export interface WsManFault {
  /** The WSManFault Code attribute (a Windows error number), when present. */
  wsmanCode: string | null;
  subcode: string | null;
  reason: string;
}

/**
 * One tag of a reply: its local name (any namespace prefix dropped), its attribute text, and
 * where it starts and ends. Replies come from whatever answers at the target, so they are read
 * in one forward pass (two `indexOf` scans per tag) and never with a backtracking pattern.
 */
interface Tag {
  kind: 'open' | 'close' | 'empty';
  name: string;
  attrs: string;
  start: number;
  end: number;
}

function tagsOf(xml: string): Tag[] {
  const tags: Tag[] = [];
  let at = xml.indexOf('<');
  while (at >= 0) {
    const gt = xml.indexOf('>', at + 1);
    if (gt < 0) break;
    const body = xml.slice(at + 1, gt);
    if (body[0] !== '?' && body[0] !== '!') {
      const close = body[0] === '/';
      const empty = !close && body.endsWith('/');
      const inner = body.slice(close ? 1 : 0, empty ? -1 : undefined);
      const space = inner.search(/\s/);
      const qname = space < 0 ? inner : inner.slice(0, space);
      tags.push({ kind: close ? 'close' : empty ? 'empty' : 'open', name: qname.slice(qname.lastIndexOf(':') + 1), attrs: space < 0 ? '' : inner.slice(space), start: at, end: gt + 1 });
    }
    at = xml.indexOf('<', gt + 1);
  }
  return tags;
}

function attrOf(tag: Tag, name: string): string | null {
  return new RegExp(`(?:^|\\s)${name}="([^"]*)"`).exec(tag.attrs)?.[1] ?? null;
}

/** The text right after open tag `i`, up to the next tag. */
function leadingText(xml: string, tags: Tag[], i: number): string {
  return xml.slice(tags[i]!.end, tags[i + 1]?.start ?? tags[i]!.end);
}

/** The text inside the first `name` element that is closed, inner tags left out; null when there is none. */
function elementText(xml: string, tags: Tag[], name: string): string | null {
  const open = tags.findIndex((t) => t.kind === 'open' && t.name === name);
  if (open < 0) return null;
  let text = '';
  for (let i = open; i + 1 < tags.length; i++) {
    text += leadingText(xml, tags, i);
    if (tags[i + 1]!.kind === 'close' && tags[i + 1]!.name === name) return text;
  }
  return null;
}

export function parseFault(xml: string): WsManFault | null {
  const tags = tagsOf(xml);
  if (!tags.some((t) => t.kind === 'open' && t.name === 'Fault')) return null;
  const code = tags.filter((t) => t.kind !== 'close' && t.name === 'WSManFault').map((t) => attrOf(t, 'Code'))[0];
  const wsmanCode = code && /^\d+$/.test(code) ? code : null;
  const sub = tags.findIndex((t, i) => t.kind === 'open' && t.name === 'Subcode' && tags[i + 1]?.kind === 'open' && tags[i + 1]!.name === 'Value');
  const subcode = sub < 0 ? null : leadingText(xml, tags, sub + 1);
  const text = elementText(xml, tags, 'Message') ?? elementText(xml, tags, 'Text') ?? 'WS-Management fault';
  return { wsmanCode, subcode: subcode ? xmlUnescape(subcode.trim()) : null, reason: xmlUnescape(text.trim()).slice(0, 500) };
}

/** An account that authenticates but may not use WinRM gets an AccessDenied fault (Win32 error 5). */
export function isAccessDenied(fault: WsManFault): boolean {
  return fault.wsmanCode === '5' || /AccessDenied$/.test(fault.subcode ?? '');
}

/** The trimmed text of the first open `name` tag (that `matches`) followed by text, or null. */
function firstText(xml: string, name: string, matches: (tag: Tag) => boolean = () => true): string | null {
  const tags = tagsOf(xml);
  for (let i = 0; i + 1 < tags.length; i++) {
    const t = tags[i]!;
    if (t.kind !== 'open' || t.name !== name || !matches(t)) continue;
    const text = leadingText(xml, tags, i).trim();
    if (text) return xmlUnescape(text);
  }
  return null;
}

export function parseShellId(xml: string): string | null {
  return firstText(xml, 'Selector', (t) => attrOf(t, 'Name') === 'ShellId') ?? firstText(xml, 'ShellId');
}

export function parseCommandId(xml: string): string | null {
  return firstText(xml, 'CommandId');
}

export interface ReceiveChunk {
  stdout: Buffer;
  stderr: Buffer;
  done: boolean;
  exitCode: number | null;
}

export function parseReceive(xml: string): ReceiveChunk {
  const tags = tagsOf(xml);
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  let done = false;
  let exit: string | null = null;
  tags.forEach((t, i) => {
    if (t.kind === 'close') return;
    if (t.name === 'Stream' && t.kind === 'open' && tags[i + 1]?.kind === 'close' && tags[i + 1]!.name === 'Stream') {
      const data = leadingText(xml, tags, i).trim();
      const name = attrOf(t, 'Name');
      if (data && name === 'stdout') stdout.push(Buffer.from(data, 'base64'));
      else if (data && name === 'stderr') stderr.push(Buffer.from(data, 'base64'));
    } else if (t.name === 'CommandState' && attrOf(t, 'State')?.endsWith('CommandState/Done')) {
      done = true;
    } else if (t.name === 'ExitCode' && t.kind === 'open' && exit === null) {
      exit = leadingText(xml, tags, i).trim();
    }
  });
  const exitCode = done && exit !== null && /^-?\d+$/.test(exit) ? Number(exit) : null;
  return { stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr), done, exitCode };
}
