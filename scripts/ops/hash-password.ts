/**
 * Prints a PASSWORD_HASH line for the server's config.
 *   npm run hash-password              (asks twice, nothing echoed)
 *   printf '%s' "$PW" | npm run -s hash-password   (reads the whole of stdin, exactly)
 * The password never appears on the command line (shell history, `ps`).
 */
import { hashPassword } from '../../server/password.js';

const MAX_LENGTH = 1024;

function readPiped(): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    process.stdin.on('data', (chunk: Buffer) => chunks.push(chunk));
    process.stdin.on('end', () =>
      // A trailing newline from `echo` is not part of the password; anything else is.
      resolve(
        Buffer.concat(chunks)
          .toString('utf8')
          .replace(/\r?\n$/, ''),
      ),
    );
    process.stdin.on('error', reject);
  });
}

/** Reads one line in raw mode, echoing nothing. */
function ask(prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    process.stderr.write(prompt);
    let typed = '';
    const finish = (error?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n') return finish();
        if (char === '\u0003') return finish(new Error('cancelled'));
        if (char === '\u007f' || char === '\b') typed = [...typed].slice(0, -1).join('');
        else typed += char;
      }
    };
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on('data', onData);
  });
}

async function main() {
  let password: string;
  if (process.stdin.isTTY) {
    password = await ask('Contraseña: ');
    const again = await ask('Repita la contraseña: ');
    if (password !== again) throw new Error('the two passwords differ');
  } else {
    password = await readPiped();
  }
  if (!password) throw new Error('the password is empty');
  if ([...password].length > MAX_LENGTH)
    throw new Error(`the password is longer than ${MAX_LENGTH} characters`);
  const hash = await hashPassword(password);
  process.stderr.write('Set this in the server environment (keep it out of the repository):\n');
  process.stdout.write(`PASSWORD_HASH='${hash}'\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`hash-password: ${error instanceof Error ? error.message : error}\n`);
  process.exit(1);
});
