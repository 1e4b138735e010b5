import { http, HttpResponse, type RequestHandler } from 'msw';
import { setupServer } from 'msw/node';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { config } from '../../src/config';

const mediaText = (name: string) => readFileSync(resolve(__dirname, '../../media', name), 'utf8');
/** The sample's tracks, as the server sends them to a live session. */
const CAPTIONS_VTT = mediaText('sample.es.vtt');
const CHAPTERS_VTT = mediaText('sample.chapters.vtt');

export const SIGNIN_URL = `${config.apiUrl}/api/users/signin`;
export const SIGNOUT_URL = `${config.apiUrl}/api/users/signout`;

/** What every test may meet; anything else is an unexpected request and fails the test. */
const defaults: RequestHandler[] = [
  http.post(SIGNOUT_URL, () => new HttpResponse(null, { status: 204 })),
  // The video screen's transcript and chapters (transcript.tsx, chapters.tsx).
  http.get(config.captionsUrl, () => HttpResponse.text(CAPTIONS_VTT)),
  http.get(config.chaptersUrl, () => HttpResponse.text(CHAPTERS_VTT)),
  // The player's session check when a buffered video starts playing (use-video-problem.ts).
  http.head(config.videoUrl, () => new HttpResponse(null, { status: 200 })),
];

export const server = setupServer(...defaults);

/** Every request the app made during a test, as "METHOD path". */
export const requests: string[] = [];
server.events.on('request:start', ({ request }) => {
  requests.push(`${request.method} ${new URL(request.url).pathname}`);
});

export const countRequests = (method: string, url: string) =>
  requests.filter((request) => request === `${method} ${new URL(url, 'http://x').pathname}`).length;
