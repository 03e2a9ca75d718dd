-- Channel messages in mode sync, one conversation per thread. Run with as many threads as connections
-- (-t16 -c16): wrk tells a script nothing about connections, so a thread of one connection is how each
-- connection keeps its own channel.
package.path = debug.getinfo(1, 'S').source:match('^@(.*/)') .. '?.lua;' .. package.path
require('report')

local headers = { ['Content-Type'] = 'application/json' }
local request_text

function init()
  seed_random()
  local body = '{"text":"Hello, how are you today?","entityId":"bench-user-' .. thread_index ..
    '","mode":"sync"}'
  request_text = wrk.format('POST', '/api/messaging/channels/' .. thread_channel .. '/messages',
    headers, body)
end

function request()
  return request_text
end
