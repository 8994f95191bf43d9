import { describe, expect, it } from 'vitest';
import { commandMessage, isAccessDenied, parseCommandId, parseFault, parseReceive, parseShellId } from './wsman.js';

const FAULT_NS = 'xmlns:s="http://www.w3.org/2003/05/soap-envelope" xmlns:f="http://schemas.microsoft.com/wbem/wsman/1/wsmanfault"';

describe('WS-Management replies', () => {
  it('reads an access-denied fault as Windows sends it', () => {
    const xml =
      `<s:Envelope ${FAULT_NS}><s:Body><s:Fault><s:Code><s:Value>s:Sender</s:Value><s:Subcode><s:Value>w:AccessDenied</s:Value></s:Subcode></s:Code>` +
      `<s:Reason><s:Text xml:lang="en-US">Access is denied. </s:Text></s:Reason><s:Detail><f:WSManFault Code="5" Machine="ws01"><f:Message>Access is denied. </f:Message></f:WSManFault></s:Detail></s:Fault></s:Body></s:Envelope>`;
    const fault = parseFault(xml)!;
    expect(fault).toEqual({ wsmanCode: '5', subcode: 'w:AccessDenied', reason: 'Access is denied.' });
    expect(isAccessDenied(fault)).toBe(true);
  });

  it('reads a Receive operation timeout as its fault code, not access denied', () => {
    const xml = `<s:Envelope ${FAULT_NS}><s:Body><s:Fault><s:Code><s:Value>s:Receiver</s:Value><s:Subcode><s:Value>w:TimedOut</s:Value></s:Subcode></s:Code><s:Reason><s:Text>The WS-Management service cannot complete the operation within the time specified in OperationTimeout.</s:Text></s:Reason><s:Detail><f:WSManFault Code="2150858793"/></s:Detail></s:Fault></s:Body></s:Envelope>`;
    const fault = parseFault(xml)!;
    expect(fault.wsmanCode).toBe('2150858793');
    expect(isAccessDenied(fault)).toBe(false);
  });

  it('finds no fault in a normal reply, and reads shell and command ids with any prefix', () => {
    const created = '<env:Envelope xmlns:env="x"><env:Body><q:Shell xmlns:q="y"><q:ShellId>11-22</q:ShellId></q:Shell></env:Body></env:Envelope>';
    expect(parseFault(created)).toBeNull();
    expect(parseShellId(created)).toBe('11-22');
    expect(parseCommandId('<rsp:CommandResponse><rsp:CommandId>AB-CD</rsp:CommandId></rsp:CommandResponse>')).toBe('AB-CD');
  });

  it('joins stream chunks and reads the exit code only when the command is done', () => {
    const running = '<rsp:Stream Name="stdout" CommandId="c">aGVs</rsp:Stream><rsp:Stream Name="stderr" CommandId="c"></rsp:Stream><rsp:CommandState CommandId="c" State="http://schemas.microsoft.com/wbem/wsman/1/windows/shell/CommandState/Running"/>';
    expect(parseReceive(running)).toEqual({ stdout: Buffer.from('hel'), stderr: Buffer.alloc(0), done: false, exitCode: null });
    const done =
      '<rsp:Stream Name="stdout" CommandId="c">bG8=</rsp:Stream><rsp:Stream Name="stdout" CommandId="c" End="true"/><rsp:Stream Name="stderr" CommandId="c">ZXJy</rsp:Stream>' +
      '<rsp:CommandState CommandId="c" State="http://schemas.microsoft.com/wbem/wsman/1/windows/shell/CommandState/Done"><rsp:ExitCode>3</rsp:ExitCode></rsp:CommandState>';
    expect(parseReceive(done)).toEqual({ stdout: Buffer.from('lo'), stderr: Buffer.from('err'), done: true, exitCode: 3 });
  });

  it('escapes command lines and arguments in the Command envelope', () => {
    const xml = commandMessage('https://h:5986/wsman', 20, 'S1', 'echo', ['a<b', '"c"&d']);
    expect(xml).toContain('<rsp:Command>echo</rsp:Command><rsp:Arguments>a&lt;b</rsp:Arguments><rsp:Arguments>&quot;c&quot;&amp;d</rsp:Arguments>');
    expect(xml).toContain('<w:Selector Name="ShellId">S1</w:Selector>');
  });
});
