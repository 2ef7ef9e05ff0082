// A writer of entity operations on a Redis Cluster, as a child process a test can SIGKILL at any moment
// (test/runtime/redis-core-cluster-entities.test.ts). Runs from the compiled `out/` (`npm test` builds it).
//   node test/support/cluster-writer.mjs <model.pidm> <seed> <operations> <seed node URL>…
// Prints `done <n>` after each operation.
import { generateTarget } from '../../out/src/generation/generation-engine.js';
import { redisCoreTarget } from '../../out/src/generation/redis-core/redis-core-target.js';
import { randomEntityOperations } from '../../out/src/runtime/entities/random-operations.js';
import { ClusterEntities } from '../../out/src/runtime/redis-core/core-cluster-entities.js';
import { connectCore } from '../../out/src/runtime/redis-core/core-connection.js';
import { loadRuntimeDesign } from '../../out/src/runtime/runtime-design.js';

const [model, seed, count, ...urls] = process.argv.slice(2);
const runtime = await loadRuntimeDesign(model);
const { viewModel } = await generateTarget(redisCoreTarget, { kvlm: runtime.kvlm, pidm: runtime.pidm });
const connection = await connectCore(urls[0], { cluster: urls });
const entities = new ClusterEntities({ connection, design: viewModel, kvlm: runtime.kvlm, model: runtime.model });
const operations = randomEntityOperations(runtime.model, Number(seed), Number(count), { design: runtime.kvlm });
for (const [i, drawn] of operations.entries()) {
    await entities.execute(drawn.operation);
    process.stdout.write(`done ${i + 1}\n`);
}
await connection.close();
