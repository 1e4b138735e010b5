import { memoryStorage, type SessionStorage } from '../../machines/session';

/**
 * Local storage that never throws. Safari's private mode, disabled cookies and full quotas
 * make `localStorage` throw on access or on write; the visitor should still be able to log in
 * and watch, only without being remembered, so from the first failure on we keep everything
 * in memory for the rest of the page's life.
 */
export function resilientStorage(
  getStorage: () => Storage = () => window.localStorage,
): SessionStorage {
  const memory = memoryStorage();
  let local: Storage | null = null;
  try {
    local = getStorage();
    const probe = '__storage_probe__';
    local.setItem(probe, probe);
    local.removeItem(probe);
  } catch {
    local = null;
  }

  const attempt = <T>(operation: (storage: Storage) => T, fallback: () => T): T => {
    if (local) {
      try {
        return operation(local);
      } catch {
        local = null;
      }
    }
    return fallback();
  };

  return {
    getItem: (key) =>
      attempt(
        (storage) => storage.getItem(key),
        () => memory.getItem(key),
      ),
    setItem: (key, value) =>
      attempt(
        (storage) => storage.setItem(key, value),
        () => memory.setItem(key, value),
      ),
    removeItem: (key) =>
      attempt(
        (storage) => storage.removeItem(key),
        () => memory.removeItem(key),
      ),
  };
}
