import { Box, Text, useApp, useInput, type Key } from 'ink';
import { useEffect, useReducer } from 'react';
import type { ActionRow, OverrideChange, PermsApi } from '../commands/perms/api.js';

/**
 * The action matrix as an interactive view: type to filter, arrows to move, Enter to choose a policy
 * for the selected action, then confirm (y) and the override is saved through `api`. Private to the
 * render module; it does no I/O of its own (the API comes in as a prop).
 */
export interface PermsMatrixProps {
  readonly initial: readonly ActionRow[];
  readonly api: PermsApi;
  /** The policies offered for an override. */
  readonly policies: readonly string[];
  /** Rows shown at once; the list scrolls around the cursor. */
  readonly height?: number;
}

const CLEAR = '(clear override)';

type Mode =
  | { readonly kind: 'list' }
  | { readonly kind: 'pick'; readonly row: ActionRow; readonly choice: number }
  | { readonly kind: 'confirm'; readonly row: ActionRow; readonly policy: string }
  | { readonly kind: 'saving'; readonly row: ActionRow; readonly policy: string };

type Message = { readonly tone: 'ok' | 'error'; readonly text: string } | null;

interface State {
  readonly rows: readonly ActionRow[];
  readonly filter: string;
  readonly cursor: number;
  readonly mode: Mode;
  readonly message: Message;
  readonly quit: boolean;
}

type Event =
  | { readonly type: 'key'; readonly input: string; readonly key: Key; readonly policies: readonly string[] }
  | { readonly type: 'saved'; readonly rows: readonly ActionRow[]; readonly text: string }
  | { readonly type: 'failed'; readonly text: string };

function choicesFor(row: ActionRow, policies: readonly string[]): string[] {
  return [...(row.override !== null ? [CLEAR] : []), ...policies];
}

function describe(row: ActionRow, change: OverrideChange): string {
  return change.policy === null
    ? `Cleared the override of ${row.action} (was ${change.previous ?? 'not set'}).`
    : `Set ${row.action} to ${change.policy} (was ${change.previous ?? 'the default'}).`;
}

function failure(err: unknown): string {
  const e = err as { message?: string; code?: string; rule?: string; requestId?: string };
  return [e.message ?? String(err), e.code && `code: ${e.code}`, e.rule && `rule: ${e.rule}`, e.requestId && `request id: ${e.requestId}`]
    .filter(Boolean)
    .join('  ');
}

function visibleRows(state: State): readonly ActionRow[] {
  const needle = state.filter.toLowerCase();
  return state.rows.filter((r) => r.action.toLowerCase().includes(needle));
}

/**
 * Every key goes through this reducer, so keys that arrive together (a paste, a fast typist, an
 * arrow's escape sequence split from the next key) each see the state the previous one left.
 */
function reduce(state: State, event: Event): State {
  if (event.type === 'saved') return { ...state, rows: event.rows, mode: { kind: 'list' }, message: { tone: 'ok', text: event.text } };
  if (event.type === 'failed') return { ...state, mode: { kind: 'list' }, message: { tone: 'error', text: event.text } };
  const { input, key, policies } = event;
  const { mode } = state;
  if (mode.kind === 'saving') return state;
  if (mode.kind === 'confirm') {
    if (input === 'y' || input === 'Y') return { ...state, mode: { kind: 'saving', row: mode.row, policy: mode.policy } };
    if (input === 'n' || input === 'N' || key.escape) return { ...state, mode: { kind: 'list' } };
    return state;
  }
  if (mode.kind === 'pick') {
    const choices = choicesFor(mode.row, policies);
    if (key.escape) return { ...state, mode: { kind: 'list' } };
    if (key.upArrow) return { ...state, mode: { ...mode, choice: Math.max(mode.choice - 1, 0) } };
    if (key.downArrow) return { ...state, mode: { ...mode, choice: Math.min(mode.choice + 1, choices.length - 1) } };
    if (key.return) return { ...state, mode: { kind: 'confirm', row: mode.row, policy: choices[mode.choice]! } };
    return state;
  }
  const visible = visibleRows(state);
  const at = Math.min(state.cursor, Math.max(visible.length - 1, 0));
  const selected = visible[at];
  if (key.upArrow) return { ...state, cursor: Math.max(at - 1, 0) };
  if (key.downArrow) return { ...state, cursor: Math.min(at + 1, Math.max(visible.length - 1, 0)) };
  if (key.return) {
    if (selected === undefined) return state;
    if (!selected.overridable)
      return { ...state, message: { tone: 'error', text: `${selected.action} is not overridable (policy ${selected.default_policy}).` } };
    const choice = Math.max(choicesFor(selected, policies).indexOf(selected.effective_policy), 0);
    return { ...state, message: null, mode: { kind: 'pick', row: selected, choice } };
  }
  if (key.escape) return state.filter === '' ? { ...state, quit: true } : { ...state, filter: '', cursor: 0 };
  if (key.backspace || key.delete) return { ...state, filter: state.filter.slice(0, -1) };
  if (input === 'q' && state.filter === '') return { ...state, quit: true };
  if (input !== '' && !key.ctrl && !key.meta && /^[\w:.\-/]+$/.test(input)) return { ...state, filter: state.filter + input, cursor: 0 };
  return state;
}

const pad = (text: string, width: number) => text.padEnd(width);

export function PermsMatrix({ initial, api, policies, height = 15 }: PermsMatrixProps) {
  const { exit } = useApp();
  const [state, dispatch] = useReducer(reduce, {
    rows: initial,
    filter: '',
    cursor: 0,
    mode: { kind: 'list' },
    message: null,
    quit: false,
  });
  const { rows, filter, mode, message } = state;

  useInput((input, key) => dispatch({ type: 'key', input, key, policies }));

  useEffect(() => {
    if (state.quit) exit();
  }, [state.quit, exit]);

  // The one side effect: a confirmed change goes to the API, then the matrix is read again.
  useEffect(() => {
    if (mode.kind !== 'saving') return;
    const { row, policy } = mode;
    (async () => {
      try {
        const change = policy === CLEAR ? await api.clearAction(row.action) : await api.setAction(row.action, policy);
        dispatch({ type: 'saved', rows: await api.actions(), text: describe(row, change) });
      } catch (err) {
        dispatch({ type: 'failed', text: failure(err) });
      }
    })();
  }, [mode, api]);

  const visible = visibleRows(state);
  const at = Math.min(state.cursor, Math.max(visible.length - 1, 0));
  const selected = visible[at];

  const top = Math.min(Math.max(at - Math.floor(height / 2), 0), Math.max(visible.length - height, 0));
  const shown = visible.slice(top, top + height);
  const width = Math.max(6, ...visible.map((r) => r.action.length));

  return (
    <Box flexDirection="column">
      <Text>
        <Text bold>Permission matrix</Text> <Text dimColor>(type to filter, ↑/↓ move, Enter set override, Esc clear filter, q quit)</Text>
      </Text>
      <Text>
        Filter: {filter === '' ? <Text dimColor>none</Text> : <Text color="cyan">{filter}</Text>}{' '}
        <Text dimColor>
          ({visible.length} of {rows.length})
        </Text>
      </Text>
      <Text bold>{`  ${pad('ACTION', width)}  ${pad('DEFAULT', 13)}  ${pad('OVERRIDE', 13)}  EFFECTIVE`}</Text>
      {shown.map((row) => {
        const isSelected = row === selected;
        const line = `${isSelected ? '>' : ' '} ${pad(row.action, width)}  ${pad(row.default_policy, 13)}  ${pad(row.override ?? '-', 13)}  ${row.effective_policy}`;
        return (
          <Text key={row.action} inverse={isSelected} dimColor={!row.overridable && !isSelected}>
            {line}
          </Text>
        );
      })}
      {visible.length === 0 && <Text dimColor> no action matches</Text>}
      {mode.kind === 'pick' && (
        <Box flexDirection="column" marginTop={1}>
          <Text>
            Policy for <Text bold>{mode.row.action}</Text> (default {mode.row.default_policy}; Enter choose, Esc back):
          </Text>
          {choicesFor(mode.row, policies).map((policy, i) => (
            <Text key={policy} color={i === mode.choice ? 'cyan' : undefined}>
              {`${i === mode.choice ? '>' : ' '} ${policy}`}
            </Text>
          ))}
        </Box>
      )}
      {mode.kind === 'confirm' && (
        <Box marginTop={1}>
          <Text color="yellow">
            {mode.policy === CLEAR
              ? `Clear the override of ${mode.row.action} (back to ${mode.row.default_policy})? [y/n]`
              : `Set ${mode.row.action} to ${mode.policy} (now ${mode.row.effective_policy})? [y/n]`}
          </Text>
        </Box>
      )}
      {mode.kind === 'saving' && <Text dimColor>Saving…</Text>}
      {message !== null && <Text color={message.tone === 'ok' ? 'green' : 'red'}>{message.text}</Text>}
    </Box>
  );
}
