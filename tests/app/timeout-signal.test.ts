import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { timeoutSignal } from '../../src/api/timeout-signal';

describe('timeoutSignal, for browsers without AbortSignal.timeout and AbortSignal.any', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('aborts with a TimeoutError once the time is up, and not before', () => {
    const signal = timeoutSignal(1_000);
    vi.advanceTimersByTime(999);
    expect(signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(signal.aborted).toBe(true);
    expect((signal.reason as DOMException).name).toBe('TimeoutError');
  });

  it('aborts as soon as the signal it follows does, with its reason', () => {
    const outer = new AbortController();
    const signal = timeoutSignal(1_000, outer.signal);
    outer.abort('screen left');
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('screen left');
  });

  it('is aborted at once when the signal it follows already is', () => {
    expect(timeoutSignal(1_000, AbortSignal.abort('gone')).aborted).toBe(true);
  });
});
