import { readFileSync } from 'node:fs';

/** Whether process `pid` runs (EPERM: another user's, alive); a zombie does not, or its lease would block the next builder. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !exited(pid);
}

/** True when `/proc` says `pid` exited and was not reaped; false where there is no `/proc`. */
function exited(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  // `pid (command) state …`: the command may hold spaces and parentheses, the state follows the last `)`.
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state === 'Z' || state === 'X';
}
