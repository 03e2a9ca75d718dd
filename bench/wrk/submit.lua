-- POST /api/messaging/submit, each message to a new random channel (so each one also creates its channel).
package.path = debug.getinfo(1, 'S').source:match('^@(.*/)') .. '?.lua;' .. package.path
require('report')

local headers = { ['Content-Type'] = 'application/json' }

function init()
  seed_random()
end

function request()
  local body = '{"channel_id":"' .. uuid() ..
    '","author_id":"bench-agent","content":"A message from the benchmark, stored durably."}'
  return wrk.format('POST', '/api/messaging/submit', headers, body)
end
