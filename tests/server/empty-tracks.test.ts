/**
 * A video published straight from the camera: prepare-video's captions stub and no chapters.
 * Its summary says so with the commands that add them, and the page the server sends marks its
 * root so that the panels are one line high from the first paint (panels.css).
 */
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Manifest } from '../../config/media-layout.js';
import { describe as summary } from '../../scripts/ops/prepare-video.js';
import { fakeDist, testServer } from './helpers.js';

const LOGIN = '/capacitacion/login';
const STUB = 'WEBVTT\n\nNOTE Subtítulos en español pendientes: reemplace este archivo.\n';
const CUES = 'WEBVTT\n\n00:00.000 --> 00:04.000\nInicio\n';

/** The page's root element, less the copy's period the server writes on every page. */
const rootOf = (html: string) =>
  /<html\b[^>]*>/.exec(html)?.[0].replace(/ data-offline-copy-days="\d+"/, '');

describe('the page of a publish without chapters and with the captions stub', () => {
  let dist: string;
  let media: string;
  let version = 0;
  /** Writes a file of the publish with an mtime of its own, as a later edit would. */
  const write = (name: string, text: string) => {
    writeFileSync(join(media, name), text);
    const when = new Date(Date.UTC(2026, 0, 1) + ++version * 60_000);
    utimesSync(join(media, name), when, when);
  };
  beforeEach(() => {
    dist = fakeDist();
    media = mkdtempSync(join(tmpdir(), 'media-'));
    write('master.m3u8', '#EXTM3U\n');
    write('captions.es.vtt', STUB);
  });
  afterEach(() => {
    rmSync(dist, { recursive: true, force: true });
    rmSync(media, { recursive: true, force: true });
  });

  it.each([LOGIN, '/capacitacion/VideoPlayer'])(
    '%s marks both tracks empty on its root, the rest as built',
    async (path) => {
      const app = await testServer({ DIST_DIR: dist, MEDIA_DIR: media });
      const res = await app.inject({ url: path });
      expect(res.statusCode).toBe(200);
      expect(rootOf(res.body)).toBe('<html data-no-captions data-no-chapters lang="es">');
      expect(res.body.replace(' data-no-captions data-no-chapters', '')).not.toContain('data-no');
      await app.close();
    },
  );

  it('follows the captions and the chapters as they are written, with new ETags', async () => {
    const app = await testServer({ DIST_DIR: dist, MEDIA_DIR: media });
    const first = await app.inject({ url: LOGIN });
    write('captions.es.vtt', CUES);
    const captioned = await app.inject({ url: LOGIN });
    expect(rootOf(captioned.body)).toBe('<html data-no-chapters lang="es">');
    expect(captioned.headers.etag).not.toBe(first.headers.etag);
    write('chapters.vtt', CUES);
    const both = await app.inject({ url: LOGIN });
    expect(rootOf(both.body)).toBe('<html lang="es">');
    expect(both.headers.etag).not.toBe(captioned.headers.etag);
    await app.close();
  });

  it('counts a track that is not WebVTT, or has no cue, as empty', async () => {
    write('chapters.vtt', '<!doctype html><p>hola</p>');
    write('captions.es.vtt', 'WEBVTT\n\n00:05.000 --> 00:04.000\nAl revés\n');
    const app = await testServer({ DIST_DIR: dist, MEDIA_DIR: media });
    expect(rootOf((await app.inject({ url: LOGIN })).body)).toBe(
      '<html data-no-captions data-no-chapters lang="es">',
    );
    await app.close();
  });

  it('leaves the root as built for the sample (no MEDIA_DIR), which has both', async () => {
    const app = await testServer({ DIST_DIR: dist });
    expect(rootOf((await app.inject({ url: LOGIN })).body)).toBe('<html lang="es">');
    await app.close();
  });
});

describe("prepare-video's summary", () => {
  const manifest = (captions: Manifest['captions'], chapters: number): Manifest => ({
    id: 'k3f9a1c2',
    version: 'v20260101000000-k3f9a1c2',
    source: 'camara.mov',
    durationS: 95,
    frameRate: 30,
    rungs: [],
    fallback: { rung: 'k3f9a1c2-360p', bytes: 1_000_000 },
    captions,
    chapters,
  });
  const line = (text: string, name: string) =>
    text.split('\n').find((row) => row.startsWith(`  ${name}`));

  it('says the captions are a stub and the chapters missing, with the command that adds each', () => {
    const text = summary(manifest('stub', 0), 'media', 'videos/camara.mov');
    expect(line(text, 'chapters')).toBe(
      '  chapters  MISSING: the page says "todavía no tiene capítulos". Add them (one "MM:SS Title" a line): npm run prepare-video -- videos/camara.mov --out media --chapters chapters.txt',
    );
    expect(line(text, 'captions')).toBe(
      '  captions  captions.es.vtt is a STUB with no lines: no captions, no transcript. Add them: put the Spanish WebVTT at videos/camara.es.vtt, then npm run prepare-video -- videos/camara.mov --out media',
    );
  });

  it('names what was published when both are there', () => {
    const text = summary(manifest('kept', 5), 'media', 'camara.mov');
    expect(line(text, 'chapters')).toBe('  chapters  chapters.vtt (5)');
    expect(line(text, 'captions')).toBe(
      '  captions  captions.es.vtt (kept from beside the source)',
    );
    expect(text).not.toMatch(/MISSING|STUB/);
  });
});
