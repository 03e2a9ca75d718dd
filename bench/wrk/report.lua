-- Shared by the wrk scripts: a version-4 UUID, and the summary printed as one JSON line for the runner.

function uuid()
  return string.format(
    '%04x%04x-%04x-4%03x-%04x-%04x%04x%04x',
    math.random(0, 0xffff), math.random(0, 0xffff), math.random(0, 0xffff),
    math.random(0, 0xfff), 0x8000 + math.random(0, 0x3fff),
    math.random(0, 0xffff), math.random(0, 0xffff), math.random(0, 0xffff))
end

local threads = 0

-- Each thread gets its own index (to seed its random numbers apart from the others') and its own channel.
function setup(thread)
  threads = threads + 1
  thread:set('thread_index', threads)
  thread:set('thread_channel', uuid())
end

function seed_random()
  math.randomseed(os.time() * 1000 + thread_index)
  for _ = 1, 10 do math.random() end
end

function done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests":%d,"durationUs":%d,"errors":{"connect":%d,"read":%d,"write":%d,' ..
      '"status":%d,"timeout":%d},"latencyUs":{"p50":%d,"p90":%d,"p99":%d,"max":%d}}\n',
    summary.requests, summary.duration, errors.connect, errors.read, errors.write,
    errors.status, errors.timeout, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency.max))
end
