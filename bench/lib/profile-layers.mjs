// Layers a server's CPU profile is split into: where a reply's time goes on the main thread. A sample goes to
// the first layer whose pattern matches a frame of its stack (its URL, or its function's name where the code is
// bundled). Async code starts from the microtask queue, so stacks are short and the layer that runs is usually
// the one on the stack.

export const LAYERS = [
  [
    'model call (client, SSE, AI SDK)',
    /\/(ai|@ai-sdk\/[^/]+|@opentelemetry\/api|eventsource-parser)\/|undici|webstreams|node:_http_client|node:_http_agent/,
    /^(streamChatCompletion|deltaOf|sendOverHttp|sendThroughFetch)$/,
  ],
  [
    'database (kysely, pg, PGlite, its thread messaging)',
    /@electric-sql\/pglite|^wasm:|\/(kysely|pg|pg-protocol|pg-pool)\/|worker|messageport/,
    /^postMessage$/,
  ],
  ['socket.io / engine.io / ws', /\/(socket\.io[^/]*|engine\.io[^/]*|ws)\//],
  [
    'HTTP (hono, @hono/node-server, node http)',
    /\/(hono|@hono\/node-server)\/|node:_http|node:internal\/http/,
  ],
  ['zod (validation)', /\/zod\//],
  ['Parley (packages/*)', /packages\/(server|core|plugin-sdk)\//],
  ['pino', /\/pino/],
  ['bench profiler', /bench\/lib\/server-process|node:inspector/],
];

function layerOf(stack) {
  for (const [name, urlPattern, functionPattern] of LAYERS) {
    if (
      stack.some(
        (frame) =>
          urlPattern.test(frame.url) ||
          (functionPattern && functionPattern.test(frame.functionName)),
      )
    ) {
      return name;
    }
  }
  const top = stack[0];
  if (['(garbage collector)', '(idle)', '(program)'].includes(top.functionName))
    return top.functionName;
  return 'other (node core, V8)';
}

/** Microseconds of the profile per layer, `(idle)` included. */
export function layerTimes(profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) parentOf.set(child, node.id);
  }
  const self = new Map();
  for (let index = 0; index < profile.samples.length; index++) {
    const id = profile.samples[index];
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
  }
  const layers = new Map();
  for (const [id, us] of self) {
    const stack = [];
    for (let node = id; node !== undefined; node = parentOf.get(node)) {
      stack.push(byId.get(node).callFrame);
    }
    const layer = layerOf(stack);
    layers.set(layer, (layers.get(layer) ?? 0) + us);
  }
  return layers;
}
