/** Plain HTTP helpers: node:http, so that no client decompresses or rewrites headers for us. */
import { request } from 'node:http';
import type { Site } from './site';

export interface Head {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: number;
}

/** GETs `url`, reads the body to the end (counting bytes) and returns status and headers. */
export function get(url: string, headers: Record<string, string> = {}): Promise<Head> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', headers }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes }));
      res.on('error', reject);
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`GET ${url} took more than 10 s`)));
    req.on('error', reject);
    req.end();
  });
}

export interface SignedIn {
  /** `name=value` pairs for a Cookie header. */
  cookie: string;
  empresa: string;
  nombres: string;
}

/** A real signin, as the login screen makes it: the server answers with a session cookie. */
export async function signIn(site: Site): Promise<SignedIn> {
  const response = await fetch(`${site.origin}/api/users/signin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ form: { usuario: site.username, contraseña: site.password } }),
  });
  if (response.status !== 200) throw new Error(`signin answered ${response.status}`);
  const body = (await response.json()) as { empresa: string; nombres: string };
  const cookie = response.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ');
  if (!cookie) throw new Error('signin set no cookie');
  return { cookie, empresa: body.empresa, nombres: body.nombres };
}
