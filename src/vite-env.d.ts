/// <reference types="vite/client" />

/** Replaced at build time by vite.config.ts (`define`) with the client config as JSON. */
declare const __APP_CONFIG__: import('../config/settings').ClientConfig;
