// Reads a password from stdin: the first line of piped input, or, at a terminal, typed at
// a prompt on stderr without echo (asked twice, so a typo cannot lock the owner out).
import { StringDecoder } from 'node:string_decoder';
import { CommandError, EXIT_INTERRUPTED, type CliIo } from './command.ts';

/** More than any password the service accepts; stops a runaway pipe from filling memory. */
const MAX_INPUT = 64 * 1024;

/** `unchanged` ends the failure messages: what the command did not do ("nothing was created"). */
export async function readPassword(
  io: Pick<CliIo, 'stdin' | 'stderr'>,
  { unchanged = 'nothing was created', prompt = 'Password' } = {},
): Promise<string> {
  const { stdin } = io;
  if (stdin.isTTY === true && typeof stdin.setRawMode === 'function') {
    const [first, again] = await promptHidden(io, [`${prompt}: `, `${prompt} (again): `], unchanged);
    if (first !== again) throw new CommandError(`the two passwords differ; ${unchanged}`);
    return first ?? '';
  }
  return readFirstLine(stdin);
}

/** The first line of stdin without its line ending (all of stdin when it has no newline). */
async function readFirstLine(stdin: CliIo['stdin']): Promise<string> {
  const decoder = new StringDecoder('utf8');
  let text = '';
  for await (const chunk of stdin) {
    text += typeof chunk === 'string' ? chunk : decoder.write(chunk);
    const newline = text.indexOf('\n');
    if (newline !== -1) return stripCr(text.slice(0, newline));
    if (text.length > MAX_INPUT) break;
  }
  text += decoder.end();
  return stripCr(text.split('\n', 1)[0] ?? '');
}

const stripCr = (line: string): string => (line.endsWith('\r') ? line.slice(0, -1) : line);

/** Asks each prompt in turn in raw mode (no echo); resolves to the lines typed. */
function promptHidden(
  io: Pick<CliIo, 'stdin' | 'stderr'>,
  prompts: readonly string[],
  unchanged: string,
): Promise<string[]> {
  const { stdin, stderr } = io;
  const answers: string[] = [];
  stderr.write(prompts[0] ?? '');
  stdin.setRawMode?.(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    let afterCr = false;
    const finish = (): void => {
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.setRawMode?.(false);
      stdin.pause();
    };
    const onData = (chunk: string | Buffer): void => {
      const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      let escape = false;
      for (const char of text) {
        const crlf = afterCr && char === '\n';
        afterCr = char === '\r';
        if (crlf) continue;
        if (char === '\r' || char === '\n' || char === '\u0004') {
          stderr.write('\n');
          answers.push(value);
          value = '';
          escape = false;
          const next = prompts[answers.length];
          if (next === undefined) {
            finish();
            resolve(answers);
            return;
          }
          stderr.write(next);
        } else if (char === '\u0003') {
          stderr.write('\n');
          finish();
          reject(new CommandError(`interrupted; ${unchanged}`, EXIT_INTERRUPTED));
          return;
        } else if (char === '\u001b') {
          // An arrow or function key: the rest of its escape sequence is not part of a password.
          escape = true;
        } else if (escape) {
          if (/[A-Za-z~]/.test(char)) escape = false;
        } else if (char === '\u007f' || char === '\b') {
          value = Array.from(value).slice(0, -1).join('');
        } else if (char >= ' ') {
          value += char;
        }
      }
    };
    const onEnd = (): void => {
      stderr.write('\n');
      finish();
      reject(new CommandError('no password: stdin closed at the prompt'));
    };
    stdin.on('data', onData);
    stdin.on('end', onEnd);
  });
}

/**
 * Secrets one a line (`lightbox accounts stripe`): the first `prompts.length` lines of piped input
 * ('' for each one missing), or at a terminal each asked for in turn without echo.
 */
export async function readSecretLines(
  io: Pick<CliIo, 'stdin' | 'stderr'>,
  prompts: readonly string[],
  unchanged: string,
): Promise<string[]> {
  const { stdin } = io;
  if (stdin.isTTY === true && typeof stdin.setRawMode === 'function') return promptHidden(io, prompts, unchanged);
  const decoder = new StringDecoder('utf8');
  let text = '';
  for await (const chunk of stdin) {
    text += typeof chunk === 'string' ? chunk : decoder.write(chunk);
    if (text.split('\n').length > prompts.length || text.length > MAX_INPUT) break;
  }
  text += decoder.end();
  const lines = text.split('\n').map(stripCr);
  return prompts.map((_p, i) => lines[i] ?? '');
}
