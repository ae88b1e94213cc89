/**
 * A worker thread of `scf stage DIR` (stage-dir.ts): stages each config it is sent, one at a time,
 * as `scf stage CONFIG --out DIR --quiet` would, and answers with `stageJob`'s result.
 */
import { parentPort } from 'node:worker_threads';
import type { StageJob } from './stage-dir.js';
import { stageJob } from './stage.js';

parentPort?.on('message', (job: StageJob) => {
  void stageJob(job).then((r) => parentPort?.postMessage(r));
});
