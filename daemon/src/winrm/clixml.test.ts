import { describe, expect, it } from 'vitest';
import { clixmlToText } from './clixml.js';

describe('clixmlToText', () => {
  it('extracts the error stream of a failed PowerShell script', () => {
    const stderr =
      '#< CLIXML\r\n<Objs Version="1.1.0.1" xmlns="http://schemas.microsoft.com/powershell/2004/04">' +
      '<S S="Error">Download failed: 404 &lt;not found&gt;_x000D__x000A_</S>' +
      '<S S="Error">At line:1 char:1_x000D__x000A_</S>' +
      '<S S="progress">ignored</S></Objs>';
    expect(clixmlToText(stderr)).toBe('Download failed: 404 <not found>\r\nAt line:1 char:1\r\n');
  });

  it('leaves plain stderr alone', () => {
    expect(clixmlToText("'x' is not recognized\r\n")).toBe("'x' is not recognized\r\n");
  });
});
