import { http, HttpResponse, type RequestHandler } from 'msw';
import { setupServer } from 'msw/node';
import { config } from '../../src/config';

export const SIGNIN_URL = `${config.apiUrl}/api/users/signin`;
export const SIGNOUT_URL = `${config.apiUrl}/api/users/signout`;

/** What every test may meet; anything else is an unexpected request and fails the test. */
const defaults: RequestHandler[] = [
  http.post(SIGNOUT_URL, () => new HttpResponse(null, { status: 204 })),
];

export const server = setupServer(...defaults);

/** Every request the app made during a test, as "METHOD path". */
export const requests: string[] = [];
server.events.on('request:start', ({ request }) => {
  requests.push(`${request.method} ${new URL(request.url).pathname}`);
});

export const countRequests = (method: string, url: string) =>
  requests.filter((request) => request === `${method} ${new URL(url, 'http://x').pathname}`).length;
