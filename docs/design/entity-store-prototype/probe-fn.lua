#!lua name=probe
redis.register_function('p_add', function(keys, args)
  return redis.call('FT.ADD','idx',keys[1],'1.0','REPLACE','FIELDS','name',args[1],'rank',args[2])
end)
redis.register_function('p_partial', function(keys, args)
  return redis.call('FT.ADD','idx',keys[1],'1.0','REPLACE','PARTIAL','FIELDS','name',args[1])
end)
redis.register_function('p_del', function(keys, args)
  return redis.call('FT.DEL','idx',keys[1],'DD')
end)
redis.register_function('p_refuse', function(keys, args)
  if redis.call('EXISTS', keys[2]) == 1 then return redis.error_reply('KVMOD REFERENCED ' .. keys[2]) end
  redis.call('HSET', keys[1], 'x', '1')
  return 'ok'
end)
redis.register_function('p_midfail', function(keys, args)
  redis.call('HSET', keys[1], 'before', '1')
  redis.call('FT.ADD','idx',keys[2],'1.0','FIELDS','name','n','rank','notanumber')
  redis.call('HSET', keys[1], 'after', '1')
  return 'ok'
end)
redis.register_function('p_midfail_dup', function(keys, args)
  redis.call('HSET', keys[1], 'before', '1')
  redis.call('FT.ADD','idx',keys[2],'1.0','FIELDS','name','n','rank','1')
  redis.call('HSET', keys[1], 'after', '1')
  return 'ok'
end)
