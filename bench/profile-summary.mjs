// Summarises V8 CPU profiles (from `node bench/run.mjs --profile`): the functions with the most self time,
// and the packages/files where the time goes. `node bench/profile-summary.mjs FILE.cpuprofile [--top=25]`.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { LAYERS, layerTimes } from './lib/profile-layers.mjs';

const args = process.argv.slice(2);
const top = Number(args.find((arg) => arg.startsWith('--top='))?.slice(6) ?? 25);
const files = args.filter((arg) => !arg.startsWith('--'));
if (files.length === 0) {
  console.error('usage: node bench/profile-summary.mjs FILE.cpuprofile… [--top=25]');
  process.exit(2);
}

/** Where a URL's code comes from: a package of node_modules, a workspace package, or node itself. */
function originOf(url) {
  if (!url) return '(native / V8)';
  if (url.startsWith('node:')) return 'node core';
  const pnpm = url.match(/node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (pnpm) return pnpm[1];
  const modules = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (modules) return modules[1];
  const workspace = url.match(/\/(packages|bench|apps)\/([^/]+)\//);
  if (workspace) return `${workspace[1]}/${workspace[2]}`;
  return url;
}

function keyOf(callFrame) {
  const where = callFrame.url
    ? `${callFrame.url.replace(/^file:\/\/.*node_modules\/\.pnpm\/[^/]+\/node_modules\//, '').replace(/^file:\/\/.*?\/(?=packages\/|bench\/|apps\/)/, '')}:${callFrame.lineNumber + 1}`
    : '';
  return `${callFrame.functionName || '(anonymous)'} ${where}`;
}

function summarize(file) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  for (let index = 0; index < profile.samples.length; index++) {
    const id = profile.samples[index];
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
  }
  const totalUs = profile.endTime - profile.startTime;
  const functions = new Map();
  const origins = new Map();
  for (const [id, us] of self) {
    const { callFrame } = byId.get(id);
    const key = keyOf(callFrame);
    functions.set(key, (functions.get(key) ?? 0) + us);
    const origin = originOf(callFrame.url);
    const originKey =
      callFrame.functionName === '(idle)' || callFrame.functionName === '(program)'
        ? callFrame.functionName
        : callFrame.functionName === '(garbage collector)'
          ? '(garbage collector)'
          : origin;
    origins.set(originKey, (origins.get(originKey) ?? 0) + us);
  }
  // Inclusive time: a sample counts once for every distinct function on its stack.
  const parentOf = new Map();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) parentOf.set(child, node.id);
  }
  const inclusive = new Map();
  for (const [id, us] of self) {
    const seen = new Set();
    for (let node = id; node !== undefined; node = parentOf.get(node)) {
      const key = keyOf(byId.get(node).callFrame);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + us);
    }
  }
  inclusive.delete('(root) ');
  const layers = layerTimes(profile);
  const percent = (us) => `${((us / totalUs) * 100).toFixed(1).padStart(5)} %`;
  const print = (title, map, limit) => {
    console.log(`\n  ${title}`);
    for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, limit)) {
      console.log(`  ${percent(us)}  ${(us / 1000).toFixed(0).padStart(6)} ms  ${key}`);
    }
  };
  console.log(`\n${basename(file)}: ${(totalUs / 1e6).toFixed(1)} s profiled`);
  print('time by layer (a sample goes to the first layer on its stack)', layers, LAYERS.length + 4);
  print('self time by origin', origins, 15);
  print('self time by function', functions, top);
  print('inclusive time by function', inclusive, top);
}

for (const file of files) summarize(file);
