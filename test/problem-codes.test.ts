import { readdirSync, readFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { describe, expect, it } from 'vitest';
import { PROBLEM_CODES, problemCodeEntry, type ProblemCode } from '../src/shared/api/problem-codes.js';
import { Problem, problem } from '../src/shared/api/problem.js';

const CODES = Object.keys(PROBLEM_CODES) as ProblemCode[];

/** Every `.ts` file under `dir` (a path from the repository root) with its text. */
function sources(dir: string): { file: string; text: string }[] {
  const root = new URL(`../${dir}/`, import.meta.url);
  return (readdirSync(root, { recursive: true }) as string[])
    .filter((file) => file.endsWith('.ts'))
    .map((file) => ({ file: `${dir}/${file}`, text: readFileSync(new URL(file, root), 'utf8') }));
}

const all = (text: string, pattern: RegExp): string[] => [...text.matchAll(pattern)].map((match) => match[1]!);

/**
 * The codes src/ makes problems with: `problem('…'`, `new Problem(status, '…'`, and in a file typed by
 * `ProblemCode` (the trigger body rules' failures, which carry a code as data) its `code: '…'` members and
 * the codes an `Extract<ProblemCode, …>` names.
 */
function codesUsedIn(text: string): string[] {
  const codes = [...all(text, /(?<![\w.])problem\(\s*'(\w+)'/g), ...all(text, /new Problem\(\s*[^,()]+,\s*'(\w+)'/g)];
  if (text.includes('ProblemCode')) {
    codes.push(...all(text, /\bcode:\s*'(\w+)'/g));
    for (const union of all(text, /Extract<\s*ProblemCode,([^>]*)>/g)) codes.push(...all(union, /'(\w+)'/g));
  }
  return codes;
}

/**
 * (status, code) pairs the existing tests assert on an answer: `404, 'flow_not_found'` side by side,
 * `status: 409, code: '…'`, or a 4xx/5xx status (`.toBe(403)`, `status: 422,`) with a `code` literal in
 * one of the next three lines.
 */
function assertedPairs(file: string, text: string): { code: string; status: number; where: string }[] {
  const pairs: { code: string; status: number; where: string }[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    // A Problem made by hand for a serialization test asserts nothing about the table.
    if (line.includes('new Problem(')) return;
    for (const match of line.matchAll(/\b([45]\d\d),\s*'(\w+)'|status:\s*([45]\d\d),\s*code:\s*'(\w+)'/g)) {
      pairs.push({ code: match[2] ?? match[4]!, status: Number(match[1] ?? match[3]), where: `${file}:${i + 1}` });
    }
    const status = /(?:status\)?\.toBe\(|^\s*status:\s*)([45]\d\d)\b/.exec(line);
    if (!status) return;
    for (let j = i + 1; j < Math.min(i + 4, lines.length); j++) {
      const code = /\bcode\W.*?'(\w+)'/.exec(lines[j]!);
      if (code) {
        pairs.push({ code: code[1]!, status: Number(status[1]), where: `${file}:${j + 1}` });
        break;
      }
    }
  });
  return pairs.filter((pair) => pair.code in PROBLEM_CODES);
}

describe('the problem code table', () => {
  it('gives every code a 4xx or 5xx status with a reason phrase, and a meaning', () => {
    for (const code of CODES) {
      const { status, meaning } = problemCodeEntry(code);
      expect(status >= 400 && status <= 599 && STATUS_CODES[status] !== undefined, `${code}: ${status}`).toBe(true);
      expect(meaning.length, code).toBeGreaterThan(0);
    }
  });

  it('has one documented exception to one status per code: flow_not_found, 404 from run admission and 422 on the webhook trigger', () => {
    const exceptions = CODES.filter((code) => problemCodeEntry(code).otherStatus !== undefined);
    expect(exceptions).toEqual(['flow_not_found']);
    expect(problemCodeEntry('flow_not_found')).toMatchObject({ status: 404, otherStatus: { status: 422 } });
  });

  it('holds every problem code src/ makes a problem with', () => {
    const used = new Map<string, string>();
    for (const { file, text } of [...sources('src/daemon'), ...sources('src/shared')]) {
      for (const code of codesUsedIn(text)) used.set(code, file);
    }
    // The scan must see the codes actually made, or it proves nothing.
    expect(used.size).toBeGreaterThanOrEqual(50);
    const missing = [...used].filter(([code]) => !(code in PROBLEM_CODES)).map(([code, file]) => `${code} (${file})`);
    expect(missing).toEqual([]);
  });

  it('gives each code the status the existing tests assert for it', () => {
    const pairs = sources('test').flatMap(({ file, text }) => assertedPairs(file, text));
    expect(new Set(pairs.map((pair) => pair.code)).size).toBeGreaterThanOrEqual(40);
    const disagreeing = pairs.filter((pair) => {
      const entry = problemCodeEntry(pair.code as ProblemCode);
      return pair.status !== entry.status && pair.status !== entry.otherStatus?.status;
    });
    expect(disagreeing).toEqual([]);
  });
});

describe('problem()', () => {
  it("makes every code's Problem with the table's status and the code's reason phrase as title", () => {
    for (const code of CODES) {
      const made = problem(code);
      expect(made).toBeInstanceOf(Problem);
      expect(made).toMatchObject({ code, status: PROBLEM_CODES[code].status, title: STATUS_CODES[PROBLEM_CODES[code].status] });
    }
  });

  it('keeps detail, extensions and headers as given', () => {
    const made = problem('rate_limited', 'Slow down.', { limit: 'global' }, { 'Retry-After': '7' });
    expect(made).toMatchObject({ status: 429, message: 'Slow down.', extensions: { limit: 'global' }, headers: { 'Retry-After': '7' } });
  });

  it('withStatus answers a code with the other status its table entry names, and refuses any other', () => {
    const notFound = problem('flow_not_found', 'No live flow.', { flow_id: 'f' });
    const answered = notFound.withStatus(422);
    expect(answered).toMatchObject({ status: 422, code: 'flow_not_found', message: 'No live flow.', extensions: { flow_id: 'f' } });
    expect(notFound.status).toBe(404);
    expect(notFound.withStatus(404)).toBe(notFound);
    expect(() => notFound.withStatus(400)).toThrow();
    expect(() => problem('forbidden', 'no').withStatus(404)).toThrow();
  });
});

describe('the rooms below http/', () => {
  it('import nothing from src/daemon/http/ (auth, authz, audit, tenancy, db), and shared/ nothing from the daemon', () => {
    const upward: string[] = [];
    for (const room of ['auth', 'authz', 'audit', 'tenancy', 'db']) {
      for (const { file, text } of sources(`src/daemon/${room}`)) {
        for (const target of all(text, /from '([^']+)'/g)) if (/(^|\/)http\//.test(target)) upward.push(`${file} -> ${target}`);
      }
    }
    for (const { file, text } of sources('src/shared')) {
      for (const target of all(text, /from '([^']+)'/g)) if (/(^|\/)daemon\//.test(target)) upward.push(`${file} -> ${target}`);
    }
    expect(upward).toEqual([]);
  });
});
