import { readFile } from 'node:fs/promises';

/** Linux clock ticks per second for /proc (`getconf CLK_TCK`, 100 on every common kernel). */
const TICKS_PER_SECOND = 100;

/**
 * CPU time (user + system, ms) a process has used so far, from `/proc/<pid>/stat` (fields 14
 * and 15); undefined where there is no /proc (not Linux) or the process is gone.
 */
export async function processCpuMs(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count from after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / TICKS_PER_SECOND : undefined;
  } catch {
    return undefined;
  }
}
