/**
 * Resident memory of processes from `/proc` (Linux only): what the `start` figures read. RSS
 * counts every page a process has in RAM, shared ones (the Node binary, libraries) included, so
 * the RSS of several processes added up overstates what they need together.
 */
import { readFile, readdir } from 'node:fs/promises';

/** One process of a group: its IDs, command line and resident memory (MiB). */
export interface ProcessMemory {
  pid: number;
  ppid: number;
  command: string;
  rssMb: number;
  /** The most it has had resident since it started (`VmHWM`). */
  peakRssMb: number;
}

const kbToMb = (kb: number) => kb / 1024;

function statusKb(status: string, field: string): number {
  const match = status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
  return match ? Number(match[1]) : 0;
}

/** A process's memory, or undefined when it is gone (or there is no /proc). */
async function readProcess(pid: number): Promise<(ProcessMemory & { pgrp: number }) | undefined> {
  try {
    const [stat, status, cmdline] = await Promise.all([
      readFile(`/proc/${pid}/stat`, 'utf8'),
      readFile(`/proc/${pid}/status`, 'utf8'),
      readFile(`/proc/${pid}/cmdline`, 'utf8'),
    ]);
    // Fields after the command name (in parentheses, may hold spaces): state, ppid, pgrp.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return {
      pid,
      ppid: Number(fields[1]),
      pgrp: Number(fields[2]),
      command: cmdline.split('\0').join(' ').trim(),
      rssMb: kbToMb(statusKb(status, 'VmRSS')),
      peakRssMb: kbToMb(statusKb(status, 'VmHWM')),
    };
  } catch {
    return undefined;
  }
}

/**
 * Every process of process group `pgid` (a process the bench started detached leads its own
 * group, and its children stay in it).
 *
 * @throws where there is no /proc.
 */
export async function processGroupMemory(pgid: number): Promise<ProcessMemory[]> {
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name)).map(Number);
  const all = await Promise.all(pids.map(readProcess));
  return all
    .filter((p): p is ProcessMemory & { pgrp: number } => p !== undefined && p.pgrp === pgid)
    .map(({ pgrp: _pgrp, ...p }) => p);
}
