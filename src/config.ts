import type { ClientConfig } from '../config/settings';

/**
 * The client's configuration, fixed at build time (config/settings.ts validates it and
 * vite.config.ts injects it). Read here once so that no other module touches the global.
 */
export type AppConfig = ClientConfig;

function readConfig(): AppConfig {
  if (typeof __APP_CONFIG__ !== 'object' || __APP_CONFIG__ === null) {
    throw new Error('__APP_CONFIG__ is missing: build the app with vite.config.ts.');
  }
  return Object.freeze({ ...__APP_CONFIG__ });
}

export const config: AppConfig = readConfig();
