import { Box, Text, useInput } from 'ink';
import { useSyncExternalStore } from 'react';
import type { WatchStore } from './run-watch-state.js';

/**
 * The live view of one run: its state, its steps with theirs, the last events. Private to the render
 * module; it reads the store the command feeds and does no I/O. `q` or Ctrl-C stops watching (the
 * run goes on), when keys are read (stdin a terminal).
 */
export interface RunWatchProps {
  readonly store: WatchStore;
  readonly keys: boolean;
  readonly onQuit: (how: 'quit' | 'interrupt') => void;
}

type Colour = 'green' | 'red' | 'yellow' | 'cyan' | 'gray';

function colourOf(status: string): Colour {
  if (status === 'succeeded') return 'green';
  if (status === 'failed') return 'red';
  if (status === 'cancelled' || status === 'paused' || status === 'awaiting_approval') return 'yellow';
  if (status === 'running') return 'cyan';
  return 'gray';
}

export function RunWatch({ store, keys, onQuit }: RunWatchProps) {
  const state = useSyncExternalStore(store.subscribe, store.snapshot);
  useInput(
    (input, key) => {
      if (key.ctrl && input === 'c') onQuit('interrupt');
      else if (input === 'q') onQuit('quit');
    },
    { isActive: keys },
  );
  const { run } = state;
  return (
    <Box flexDirection="column">
      <Text>
        <Text bold>Run {run.name}</Text> ({run.id}) of {run.flow}: <Text color={colourOf(run.status)}>{run.status}</Text>
      </Text>
      <Box flexDirection="column" marginTop={1}>
        {state.steps.length === 0 ? (
          <Text dimColor>No step has started.</Text>
        ) : (
          state.steps.map((step) => (
            <Text key={step.id}>
              {'  '}
              <Text color={colourOf(step.status)}>{step.status.padEnd(10)}</Text> {step.id}
              {step.handler === '' ? '' : ` (${step.handler})`}
              {step.attempt > 1 ? ` attempt ${step.attempt}` : ''}
            </Text>
          ))
        )}
      </Box>
      <Box flexDirection="column" marginTop={1}>
        {state.tail.map((line, i) => (
          <Text key={i} dimColor>
            {line}
          </Text>
        ))}
      </Box>
      {state.awaiting === null ? null : <Text color="yellow">{state.awaiting}</Text>}
      {state.notice === null ? null : <Text color="yellow">{state.notice}</Text>}
      {state.ended !== null ? (
        <Text>
          Run ended: <Text color={colourOf(state.ended)}>{state.ended}</Text>
        </Text>
      ) : keys ? (
        <Text dimColor>q: stop watching (the run goes on)</Text>
      ) : null}
    </Box>
  );
}
