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
    return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
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

export function parseFault(xml: string): WsManFault | null {
  if (!/<(?:[\w-]+:)?Fault[\s>]/.test(xml)) return null;
  const wsmanCode = /<(?:[\w-]+:)?WSManFault\b[^>]*\bCode="(\d+)"/.exec(xml)?.[1] ?? null;
  const subcode = /<(?:[\w-]+:)?Subcode>\s*<(?:[\w-]+:)?Value>([^<]*)</.exec(xml)?.[1] ?? null;
  const text =
    /<(?:[\w-]+:)?Message>([\s\S]*?)<\/(?:[\w-]+:)?Message>/.exec(xml)?.[1] ?? /<(?:[\w-]+:)?Text\b[^>]*>([\s\S]*?)<\/(?:[\w-]+:)?Text>/.exec(xml)?.[1] ?? 'WS-Management fault';
  return { wsmanCode, subcode: subcode ? xmlUnescape(subcode.trim()) : null, reason: xmlUnescape(text.replace(/<[^>]+>/g, '').trim()).slice(0, 500) };
}

/** An account that authenticates but may not use WinRM gets an AccessDenied fault (Win32 error 5). */
export function isAccessDenied(fault: WsManFault): boolean {
  return fault.wsmanCode === '5' || /AccessDenied$/.test(fault.subcode ?? '');
}

export function parseShellId(xml: string): string | null {
  const m = /<(?:[\w-]+:)?Selector\s+Name="ShellId"[^>]*>([^<]+)</.exec(xml) ?? /<(?:[\w-]+:)?ShellId>([^<]+)</.exec(xml);
  return m ? xmlUnescape(m[1]!.trim()) : null;
}

export function parseCommandId(xml: string): string | null {
  const m = /<(?:[\w-]+:)?CommandId>([^<]+)</.exec(xml);
  return m ? xmlUnescape(m[1]!.trim()) : null;
}

export interface ReceiveChunk {
  stdout: Buffer;
  stderr: Buffer;
  done: boolean;
  exitCode: number | null;
}

export function parseReceive(xml: string): ReceiveChunk {
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  for (const m of xml.matchAll(/<(?:[\w-]+:)?Stream\b([^>]*?)(?:\/>|>([^<]*)<\/(?:[\w-]+:)?Stream>)/g)) {
    const name = /\bName="([^"]+)"/.exec(m[1]!)?.[1];
    const data = m[2]?.trim();
    if (!data) continue;
    const bytes = Buffer.from(data, 'base64');
    if (name === 'stdout') stdout.push(bytes);
    else if (name === 'stderr') stderr.push(bytes);
  }
  const done = /<(?:[\w-]+:)?CommandState\b[^>]*State="[^"]*CommandState\/Done"/.test(xml);
  const exit = /<(?:[\w-]+:)?ExitCode>\s*(-?\d+)\s*</.exec(xml);
  return { stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr), done, exitCode: done && exit ? Number(exit[1]) : null };
}
