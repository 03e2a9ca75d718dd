import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Whether the `wrk` load generator is on the PATH. */
export function hasWrk() {
  return spawnSync('wrk', ['--version'], { stdio: 'ignore' }).error === undefined;
}

const CLOCK_TICKS_PER_SECOND = 100;

/** CPU seconds a process has used so far, from /proc (Linux); undefined elsewhere. */
function cpuSecondsOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * Runs wrk with one of the Lua scripts of bench/wrk and returns its summary: requests, requests per second,
 * errors, latency percentiles in milliseconds, and the CPU wrk itself used (percent of one core, sampled
 * from /proc until shortly before it exits).
 */
export function runWrk({ url, script, threads, connections, durationS }) {
  const scriptPath = fileURLToPath(new URL(`../wrk/${script}`, import.meta.url));
  const args = ['-t', threads, '-c', connections, '-d', `${durationS}s`, '--timeout', '5s'];
  const child = spawn('wrk', [...args.map(String), '-s', scriptPath, url], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  const started = Date.now();
  let cpu = { seconds: undefined, at: started };
  const sampler = setInterval(() => {
    const seconds = cpuSecondsOf(child.pid);
    if (seconds !== undefined) cpu = { seconds, at: Date.now() };
  }, 200);
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (data) => (output += data));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      clearInterval(sampler);
      const line = output.split('\n').find((text) => text.startsWith('WRK_JSON '));
      if (code !== 0 || !line) {
        reject(new Error(`wrk exited with ${code}:\n${output}`));
        return;
      }
      const raw = JSON.parse(line.slice('WRK_JSON '.length));
      const errors = Object.values(raw.errors).reduce((sum, value) => sum + value, 0);
      resolve({
        requests: raw.requests,
        perSecond: raw.requests / (raw.durationUs / 1e6),
        errors,
        errorDetail: raw.errors,
        p50: raw.latencyUs.p50 / 1000,
        p90: raw.latencyUs.p90 / 1000,
        p99: raw.latencyUs.p99 / 1000,
        max: raw.latencyUs.max / 1000,
        clientCpu:
          cpu.seconds === undefined ? undefined : (cpu.seconds / ((cpu.at - started) / 1000)) * 100,
      });
    });
  });
}
