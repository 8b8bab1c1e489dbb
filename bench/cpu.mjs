// What a benchmark's child processes cost in CPU, read the same way by every benchmark that reports it.
import { readFileSync } from 'node:fs';

// CPU seconds (user + system) of this process's waited-for children and theirs so far (/proc/self/stat
// cutime + cstime, in 10 ms clock ticks): read around a child's run, what that run cost whatever else loads
// the box, which wall time on a shared machine does not say.
export function childrenCpuS() {
  const st = readFileSync('/proc/self/stat', 'utf8');
  const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) / 100;
}
