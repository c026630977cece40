import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validate } from '../src/daemon/http/validate.js';
import { Problem } from '../src/shared/api/problem.js';
import {
  MAX_ALLOW_LIST_ENTRIES,
  allowedSourceIpsSchema,
  compileAllowList,
  maskSourceIp,
  parseAllowList,
} from '../src/daemon/webhooks/source-allow-list.js';

const compile = (entries: string[]) => {
  const parsed = parseAllowList(entries);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return compileAllowList(parsed.entries);
};

describe('parseAllowList', () => {
  it('accepts IPv4 and IPv6 blocks and bare addresses, trimmed', () => {
    const list = [
      '10.0.0.0/8',
      '192.0.2.7',
      ' 198.51.100.0/24 ',
      '2001:db8::/32',
      '2001:db8::1',
      '::ffff:10.1.2.0/120',
      '0.0.0.0/0',
      '::/0',
    ];
    expect(parseAllowList(list)).toEqual({ ok: true, entries: list.map((e) => e.trim()) });
  });

  it('reads null (or absence) as no allow-list', () => {
    expect(parseAllowList(null)).toEqual({ ok: true, entries: null });
    expect(parseAllowList(undefined)).toEqual({ ok: true, entries: null });
  });

  it('names each invalid entry by its index', () => {
    const result = parseAllowList([
      '10.0.0.0/8',
      'not-an-ip',
      42,
      '10.0.0.0/33',
      '2001:db8::/129',
      '10.1.2.3/24',
      '10.1',
      '010.1.2.3',
      '0x0a.1.2.3',
      'fe80::1%eth0',
      '10.0.0.0/08',
      '10.0.0.0/',
      '',
    ]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((i) => i.path)).toEqual([[1], [2], [3], [4], [5], [6], [7], [8], [9], [10], [11], [12]]);
  });

  it('refuses a block with host bits set, naming the block meant', () => {
    const result = parseAllowList(['10.1.2.3/24']);
    expect(result).toMatchObject({ ok: false, issues: [{ path: [0] }] });
    if (!result.ok) expect(result.issues[0]!.message).toContain('10.1.2.0/24');
  });

  it('refuses an empty list, a non-list and an oversized list as a whole', () => {
    expect(parseAllowList([])).toMatchObject({ ok: false, issues: [{ path: [] }] });
    expect(parseAllowList('10.0.0.0/8')).toMatchObject({ ok: false, issues: [{ path: [] }] });
    expect(parseAllowList(Array.from({ length: MAX_ALLOW_LIST_ENTRIES + 1 }, () => '10.0.0.1'))).toMatchObject({
      ok: false,
      issues: [{ path: [] }],
    });
    expect(parseAllowList(Array.from({ length: MAX_ALLOW_LIST_ENTRIES }, () => '10.0.0.1')).ok).toBe(true);
  });
});

describe('allowedSourceIpsSchema', () => {
  const body = z.object({ allowed_source_ips: allowedSourceIpsSchema.optional() });

  it('puts each issue on allowed_source_ips[i] in a 422 validation_failed', () => {
    try {
      validate(body, { allowed_source_ips: ['10.0.0.0/8', 'nope', '10.0.0.1/8'] });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(Problem);
      expect((error as Problem).code).toBe('validation_failed');
      expect(((error as Problem).extensions.errors as { path: string }[]).map((e) => e.path)).toEqual([
        'allowed_source_ips[1]',
        'allowed_source_ips[2]',
      ]);
    }
  });

  it('passes null and absence through, and trims entries', () => {
    expect(validate(body, {})).toEqual({});
    expect(validate(body, { allowed_source_ips: null })).toEqual({ allowed_source_ips: null });
    expect(validate(body, { allowed_source_ips: [' 10.0.0.0/8'] })).toEqual({ allowed_source_ips: ['10.0.0.0/8'] });
  });
});

describe('compileAllowList', () => {
  it('allows everyone without a list', () => {
    expect(compileAllowList(null).allows('203.0.113.9')).toBe(true);
  });

  it('matches IPv4 callers against IPv4 blocks and bare addresses', () => {
    const matcher = compile(['10.1.2.0/24', '192.0.2.7']);
    expect(matcher.allows('10.1.2.3')).toBe(true);
    expect(matcher.allows('10.1.3.3')).toBe(false);
    expect(matcher.allows('192.0.2.7')).toBe(true);
    expect(matcher.allows('192.0.2.8')).toBe(false);
  });

  it('matches an IPv4-mapped IPv6 caller as the IPv4 address it carries', () => {
    const matcher = compile(['10.1.2.0/24']);
    expect(matcher.allows('::ffff:10.1.2.3')).toBe(true);
    expect(matcher.allows('::FFFF:10.1.9.3')).toBe(false);
  });

  it('matches an IPv4 caller against an IPv4-mapped IPv6 block', () => {
    const matcher = compile(['::ffff:10.1.2.0/120']);
    expect(matcher.allows('10.1.2.200')).toBe(true);
    expect(matcher.allows('::ffff:10.1.2.200')).toBe(true);
    expect(matcher.allows('10.1.3.1')).toBe(false);
  });

  it('matches IPv6 callers against IPv6 blocks only', () => {
    const matcher = compile(['2001:db8:1::/48', '10.0.0.0/8']);
    expect(matcher.allows('2001:db8:1:ffff::1')).toBe(true);
    expect(matcher.allows('2001:db8:2::1')).toBe(false);
    expect(matcher.allows('::a00:1')).toBe(false);
  });

  it('lets a wide IPv6 block that covers the mapped range admit IPv4 callers', () => {
    expect(compile(['::/0']).allows('198.51.100.1')).toBe(true);
  });

  it('refuses a caller address it cannot read', () => {
    expect(compile(['0.0.0.0/0']).allows('unknown')).toBe(false);
  });

  it('lets an entry that does not parse (written around the checks) allow nobody', () => {
    const matcher = compileAllowList(['garbage', '10.0.0.0/8']);
    expect(matcher.allows('10.9.9.9')).toBe(true);
    expect(compileAllowList(['garbage']).allows('10.9.9.9')).toBe(false);
  });
});

describe('maskSourceIp', () => {
  it('zeroes the last IPv4 octet', () => {
    expect(maskSourceIp('203.0.113.9')).toBe('203.0.113.0');
    expect(maskSourceIp('::ffff:203.0.113.9')).toBe('203.0.113.0');
  });

  it('keeps the IPv6 /64', () => {
    expect(maskSourceIp('2001:db8:1234:5678:9abc:def0:1:2')).toBe('2001:db8:1234:5678::');
    expect(maskSourceIp('::1')).toBe('::');
  });

  it('says unknown for what is not an address', () => {
    expect(maskSourceIp('unknown')).toBe('unknown');
  });
});
