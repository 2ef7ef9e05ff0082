import { loadRuntimeDesign } from '../../../out/src/runtime/runtime-design.js';
import { buildRedisViewModel } from '../../../out/src/generation/redis/redis-view-model.js';
const d = await loadRuntimeDesign(process.argv[2] ?? 'shop.pidm', { merge: 'none' });
console.log(d.kvlm.collections.map(c => c.name));
for (const dialect of ['redisearch1','redisearch2']) {
  const vm = buildRedisViewModel(d.kvlm, { dialect });
  for (const c of vm.collections) console.log(dialect, c.name, c.physicalIndex, c.key.pattern, JSON.stringify(c.fields.map(f => [f.name, f.source, f.type, f.sortKey, f.equalityKey, !!f.index])), JSON.stringify(c.nodes));
}
