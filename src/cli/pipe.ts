import { interruptRuns } from '../exec/interrupt.js';

// Which of our output streams the reader has closed (`nh-gate … | head -1`).
const closed = new WeakSet<NodeJS.WriteStream>();

// A closed stdout or stderr is not an error of the run and never a stack trace. A closed stdout with a
// series running stops the series as Ctrl-C does (the running leg is killed, finished legs are kept, the run
// is recorded as interrupted and exits as one: nobody is reading the rest); with none running the process
// ends quietly with the exit code it already has. A closed stderr only silences the progress lines.
export function quietOnClosedPipe(stream: NodeJS.WriteStream = process.stdout): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED') throw err;
    if (closed.has(stream)) return;
    closed.add(stream);
    if (stream === process.stderr) return;
    if (!interruptRuns('stdout closed')) process.exit(process.exitCode ?? 0);
  });
}

// Writes to stdout unless its reader has gone: what a stopped run still has to say goes to the run directory.
export function writeOut(text: string, stream: NodeJS.WriteStream = process.stdout): void {
  if (!closed.has(stream)) stream.write(text);
}
