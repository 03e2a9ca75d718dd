/**
 * Runs tasks one at a time per channel, in arrival order, while different channels run in parallel: the
 * in-process `KeyedQueue` for one process, a database-backed sequencer for several processes that share
 * channels. A failed task does not stop the ones behind it.
 */
export interface ChannelSequencer {
  /** Runs `task` once every earlier task of `key` (on any process sharing the sequencer) has settled. */
  run<T>(key: string, task: () => Promise<T>): Promise<T>;
}
