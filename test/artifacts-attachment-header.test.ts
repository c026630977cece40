import { describe, expect, it } from 'vitest';
import { attachmentHeader } from '../src/daemon/http/attachment-header.js';

describe('the Content-Disposition of a download', () => {
  it('quotes a plain ASCII name as it is', () => {
    expect(attachmentHeader('report-1.txt')).toBe('attachment; filename="report-1.txt"');
  });

  it('replaces quotes, backslashes and controls in the ASCII name, and sends the name in UTF-8 beside it', () => {
    expect(attachmentHeader('a"b\\c\r\n.txt')).toBe(`attachment; filename="a_b_c__.txt"; filename*=UTF-8''a%22b%5Cc%0D%0A.txt`);
    expect(attachmentHeader("Ünïcode (1)'s*.log")).toBe(
      `attachment; filename="_n_code (1)'s*.log"; filename*=UTF-8''%C3%9Cn%C3%AFcode%20%281%29%27s%2A.log`,
    );
  });
});
