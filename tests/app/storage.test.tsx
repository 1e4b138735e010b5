import { screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { resilientStorage } from '../../src/auth/storage';
import { PATHS } from '../../src/routes';
import { SIGNIN_URL } from './msw';
import { renderApp } from './render-app';
import { EMPRESA, NOMBRES } from './sessions';

const throwing = (): Storage => {
  throw new DOMException('The operation is insecure.', 'SecurityError');
};

describe('the storage the app keeps the session in', () => {
  it('is local storage when it works', () => {
    const storage = resilientStorage();
    storage.setItem('k', 'v');
    expect(localStorage.getItem('k')).toBe('v');
    expect(storage.getItem('k')).toBe('v');
    storage.removeItem('k');
    expect(localStorage.getItem('k')).toBeNull();
  });

  it('falls back to memory when local storage cannot even be reached (private mode)', () => {
    const storage = resilientStorage(throwing);
    storage.setItem('k', 'v');
    expect(storage.getItem('k')).toBe('v');
    storage.removeItem('k');
    expect(storage.getItem('k')).toBeNull();
  });

  it('falls back to memory when writing starts to fail (quota exceeded)', () => {
    const storage = resilientStorage();
    vi.spyOn(Storage.prototype, 'setItem').mockImplementation(() => {
      throw new DOMException('Quota exceeded', 'QuotaExceededError');
    });
    expect(() => storage.setItem('k', 'v')).not.toThrow();
    expect(storage.getItem('k')).toBe('v');
  });

  it('lets a visitor log in and watch even when local storage throws at every call', async () => {
    for (const method of ['getItem', 'setItem', 'removeItem'] as const) {
      vi.spyOn(Storage.prototype, method).mockImplementation(() => {
        throw new DOMException('The operation is insecure.', 'SecurityError');
      });
    }
    const { user } = renderApp({
      handlers: [
        http.post(SIGNIN_URL, () => HttpResponse.json({ empresa: EMPRESA, nombres: NOMBRES })),
      ],
    });
    await user.type(screen.getByLabelText('Contraseña'), 'clave{Enter}');
    await waitFor(() => expect(window.location.pathname).toBe(PATHS.video));
    expect(
      await screen.findByRole('button', { name: `Hola ${NOMBRES} / ${EMPRESA}` }),
    ).toBeInTheDocument();
  });
});
