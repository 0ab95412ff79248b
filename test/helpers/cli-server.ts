/**
 * The CLI behind a shell script, run in this process. A CI script (the GitHub Action's steps, a
 * GitLab job's lines) runs `node …/bin/sitesync.cjs ARGS` five to eight times a run: each a Node
 * start-up and the bundle compiled afresh, about 0.5 s of CPU, which is most of what those tests
 * cost. startCliServer gives a folder laid out as sitesync's (bin/sitesync.cjs, dist/cli.js)
 * whose bin/sitesync.cjs is a stand-in: it hands its command line, environment and folder to
 * main(argv, io) in this process over a Unix socket and writes back what the CLI wrote to
 * standard output and error, and exits with its code (runCliHere's run: standard input empty and
 * not a terminal). The script, its shell, its files, pipes and exit codes are real; only the
 * CLI's own start-up is skipped. Tests of the bundle itself run it as a process (runCli).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { main } from '../../src/cli.js';

export interface CliServer {
  /** A folder with bin/sitesync.cjs (the stand-in) and dist/cli.js (so that nothing builds it): GITHUB_ACTION_PATH, or `node DIR/bin/sitesync.cjs`. */
  dir: string;
  /** The stand-in: `node ${bin} ARGS` runs `sitesync ARGS` in this process. */
  bin: string;
  close(): Promise<void>;
}

interface Request {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
}

/** The stand-in's code: one request (a JSON line), then the CLI's output as JSON lines, the last one its exit code. */
const standIn = (socket: string) => `'use strict';
// A stand-in for sitesync in tests (test/helpers/cli-server.ts): the CLI runs in the test's process.
const connection = require('node:net').connect(${JSON.stringify(socket)});
let rest = '';
connection.setEncoding('utf8');
connection.on('data', (chunk) => {
  const lines = (rest + chunk).split('\\n');
  rest = lines.pop();
  for (const line of lines) {
    const message = JSON.parse(line);
    if ('out' in message) process.stdout.write(message.out);
    else if ('err' in message) process.stderr.write(message.err);
    else process.exitCode = message.code;
  }
});
connection.on('error', (error) => {
  process.stderr.write('the test CLI server is gone: ' + error.message + '\\n');
  process.exitCode = 99;
});
connection.write(JSON.stringify({ argv: process.argv.slice(2), env: process.env, cwd: process.cwd() }) + '\\n');
`;

export async function startCliServer(): Promise<CliServer> {
  const dir = await mkdtemp(join(tmpdir(), 'sitesync-cli-server-'));
  const socketPath = join(dir, 'cli.sock');
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let received = '';
    socket.setEncoding('utf8');
    const onData = (chunk: string) => {
      received += chunk;
      const end = received.indexOf('\n');
      if (end < 0) return;
      socket.off('data', onData);
      void serve(socket, JSON.parse(received.slice(0, end)) as Request);
    };
    socket.on('data', onData);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, resolve);
  });
  const bin = join(dir, 'bin/sitesync.cjs');
  await mkdir(join(dir, 'bin'));
  await mkdir(join(dir, 'dist'));
  await writeFile(bin, standIn(socketPath));
  await writeFile(join(dir, 'dist/cli.js'), '// Built: the CLI runs in the test process (bin/sitesync.cjs).\n');
  return {
    dir,
    bin,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function serve(socket: Socket, request: Request): Promise<void> {
  const send = (message: object) => {
    if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
  };
  // Node reads these as it starts; a run in this process would silently not honour them.
  const startUp = ['NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS'].filter((name) => (request.env[name] ?? '') !== (process.env[name] ?? ''));
  if (startUp.length) {
    send({ err: `${startUp.join(', ')}: Node reads it as it starts; run this CLI call as a process (the built bin/sitesync.cjs)\n` });
    send({ code: 70 });
    socket.end();
    return;
  }
  let code: number;
  try {
    code = await main(request.argv, {
      stdout: { write: (text: string) => send({ out: text }) },
      stderr: { write: (text: string) => send({ err: text }) },
      stdin: Readable.from(['']),
      env: request.env,
      cwd: request.cwd,
    });
  } catch (error) {
    send({ err: `the CLI threw in the test process: ${String(error)}\n` });
    code = 70;
  }
  send({ code });
  socket.end();
}
