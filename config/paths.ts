/** The two screens' paths under the base path: the app routes to them, the server serves them. */
export const SCREEN_PATHS = { login: '/login', video: '/VideoPlayer' } as const;
