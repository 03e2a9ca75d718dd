import {
  ActionStreamFilter,
  PassthroughExtractor,
  ResponseStreamExtractor,
  XmlTagExtractor,
} from '@parley/plugin-sdk';

const MB = 1024 * 1024;
/** About 1 MB of reply text inside the action-aware format the agents are prompted for. */
const TEXT = 'Hello! I am the benchmark model, and I always answer at once. '.repeat(16_000);
const INPUT = `<response><thought>Greet them back.</thought><actions>REPLY</actions><text>${TEXT}</text></response>`;
const BYTES = Buffer.byteLength(INPUT);

function chunked(size) {
  const chunks = [];
  for (let index = 0; index < INPUT.length; index += size)
    chunks.push(INPUT.slice(index, index + size));
  return chunks;
}

/** MB of model output per second through `create()`'s extractor, fed `chunks`, over at least `minMs`. */
function throughput(create, chunks, minMs) {
  const extractor = create();
  let bytes = 0;
  let output = 0;
  const started = performance.now();
  do {
    extractor.reset();
    for (const chunk of chunks) output += extractor.push(chunk).length;
    output += extractor.flush().length;
    bytes += BYTES;
  } while (performance.now() - started < minMs);
  if (output === 0) throw new Error('the extractor produced nothing');
  return bytes / MB / ((performance.now() - started) / 1000);
}

const EXTRACTORS = [
  ['ResponseStreamExtractor', () => new ResponseStreamExtractor()],
  ['ActionStreamFilter', () => new ActionStreamFilter()],
  ['XmlTagExtractor(text)', () => new XmlTagExtractor('text')],
];

/**
 * 9. Extractor throughput: @parley/plugin-sdk's stream extractors over ~1 MB of model output in 1- and
 * 64-character chunks (in the runner's process; no server involved). The limit is PassthroughExtractor, which
 * returns every chunk as it comes: the cost of the calls themselves.
 */
export default {
  id: 'extractors',
  title: '9. extractor throughput (@parley/plugin-sdk)',
  run: async (context) => {
    const minMs = Math.min(1000, context.durationS * 200);
    const rows = [];
    for (const size of [1, 64]) {
      const chunks = chunked(size);
      // Warm-up, so the JIT's compile time is not measured.
      throughput(() => new ResponseStreamExtractor(), chunks, 100);
      const limit = throughput(() => new PassthroughExtractor(), chunks, minMs);
      for (const [name, create] of EXTRACTORS) {
        rows.push({
          figure: `${name}, ${size}-char chunks`,
          value: throughput(create, chunks, minMs),
          unit: 'MB/s',
          limit,
        });
      }
    }
    return { rows, notes: [`${(BYTES / MB).toFixed(2)} MB of input per pass`] };
  },
};
