// A closed stdout (`nh-gate … | head -1`) ends the process quietly with the exit code it already has:
// the reader went away, which is not an error of the run and never a stack trace.
export function quietOnClosedPipe(stream: NodeJS.WriteStream = process.stdout): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}
