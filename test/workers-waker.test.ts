import { describe, expect, it } from 'vitest';
import { RUN_CONTROL_CHANNEL, RUNS_QUEUED_CHANNEL } from '../src/daemon/db/channels.js';
import type { Database } from '../src/daemon/db/database.js';
import type { Signal } from '../src/daemon/db/notification-listener.js';
import { WorkWaker } from '../src/daemon/domains/workers/work-waker.js';

/** A waker over a stand-in LISTEN whose signals the test sends. */
function wakerWithSignals() {
  const handlers = new Map<string, (signal: Signal, payload?: string) => void>();
  const listen: Database['listen'] = (channel, onSignal) => {
    handlers.set(channel, onSignal);
    return { stop: async () => void handlers.delete(channel) };
  };
  const waker = new WorkWaker(listen);
  waker.start();
  const send = (channel: string, signal: Signal, payload?: string) => handlers.get(channel)!(signal, payload);
  return { waker, send, handlers };
}

describe('the work waker', () => {
  it('wakes the waiters that can take work on a queued run, not the others', () => {
    const { waker, send } = wakerWithSignals();
    const hungry = waker.waiter('w1', true);
    const full = waker.waiter('w2', false);
    send(RUNS_QUEUED_CHANNEL, 'notification', 'run-id');
    expect([hungry.wasWoken, full.wasWoken]).toEqual([true, false]);
  });

  it("wakes only the named worker's waiters on a control notification", () => {
    const { waker, send } = wakerWithSignals();
    const mine = waker.waiter('w1', false);
    const theirs = waker.waiter('w2', true);
    send(RUN_CONTROL_CHANNEL, 'notification', 'w1');
    expect([mine.wasWoken, theirs.wasWoken]).toEqual([true, false]);
  });

  it('wakes everyone when a listener (re)connects, since notifications may have been lost', () => {
    const { waker, send } = wakerWithSignals();
    const a = waker.waiter('w1', false);
    const b = waker.waiter('w2', false);
    send(RUN_CONTROL_CHANNEL, 'connected');
    expect([a.wasWoken, b.wasWoken]).toEqual([true, true]);
  });

  it('wakes everyone on drain, and answers later waits at once', async () => {
    const { waker, handlers } = wakerWithSignals();
    const before = waker.waiter('w1', true);
    waker.drain();
    expect(before.wasWoken).toBe(true);
    const after = waker.waiter('w2', true);
    expect(after.wasWoken).toBe(true);
    await after.woken;
    await waker.stop();
    expect(handlers.size).toBe(0);
  });

  it('forgets a cancelled waiter', () => {
    const { waker, send } = wakerWithSignals();
    const waiter = waker.waiter('w1', true);
    waiter.cancel();
    send(RUNS_QUEUED_CHANNEL, 'notification', 'run-id');
    expect(waiter.wasWoken).toBe(false);
  });
});
