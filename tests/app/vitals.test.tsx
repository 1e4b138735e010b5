import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { config } from '../../src/config';
import { reportWebVitals } from '../../src/vitals';
import { renderApp } from './render-app';

const imported = vi.hoisted(() => ({ count: 0 }));
vi.mock('web-vitals', () => {
  imported.count += 1;
  const report = (name: string) => (callback: (metric: object) => void) =>
    callback({
      name,
      value: 1,
      rating: 'good',
      delta: 1,
      id: `v5-${name}`,
      navigationType: 'navigate',
    });
  return {
    onCLS: report('CLS'),
    onFCP: report('FCP'),
    onINP: report('INP'),
    onLCP: report('LCP'),
    onTTFB: report('TTFB'),
  };
});

describe('the web-vitals helper', () => {
  it('is not even downloaded when no reporting target is configured (the default)', async () => {
    expect(config.webVitalsUrl).toBe('');
    renderApp();
    await screen.findByLabelText('Contraseña');
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(imported.count).toBe(0);
  });

  it('reports CLS, FCP, INP, LCP and TTFB with sendBeacon when a target is configured', async () => {
    const sendBeacon = vi.fn(() => true);
    Object.defineProperty(navigator, 'sendBeacon', { configurable: true, value: sendBeacon });
    await reportWebVitals('/metrics');
    await waitFor(() => expect(sendBeacon).toHaveBeenCalledTimes(5));
    expect(imported.count).toBe(1);
    const names = sendBeacon.mock.calls.map((call: unknown[]) => JSON.parse(String(call[1])).name);
    expect(names.sort()).toEqual(['CLS', 'FCP', 'INP', 'LCP', 'TTFB']);
    expect(sendBeacon).toHaveBeenCalledWith('/metrics', expect.stringContaining('"page":"/'));
  });
});
