/** CPU time and memory of this process and of another one (the Temporal dev server), from /proc on Linux. */
import fs from 'node:fs';

export interface Usage {
  cpuMs: number;
  rssBytes: number;
  peakRssBytes: number;
}

// USER_HZ: the unit of /proc/<pid>/stat's times, 100 on every Linux that Node runs on.
const TICK_MS = 10;

export function selfUsage(): Usage {
  const cpu = process.cpuUsage();
  return { cpuMs: (cpu.user + cpu.system) / 1000, rssBytes: process.memoryUsage().rss, peakRssBytes: process.resourceUsage().maxRSS * 1024 };
}

/** The process's user and system time so far, its resident memory and its peak; zeros where /proc cannot tell. */
export function processUsage(pid: number): Usage {
  try {
    // The fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
    return { cpuMs: (Number(fields[11]) + Number(fields[12])) * TICK_MS, rssBytes: kb('VmRSS'), peakRssBytes: kb('VmHWM') };
  } catch {
    return { cpuMs: 0, rssBytes: 0, peakRssBytes: 0 };
  }
}
