// Build step: stage the optimizer pipeline for what is known now (the kernel, and that v2 and s
// will be fixed later), with scf's API. Writes src/generated/: plain ES modules, typed.
import { loadConfig, stageConfig, writeStaged } from 'scf';

const config = loadConfig(new URL('../dot.config.json', import.meta.url).pathname);
const staged = await stageConfig(config, { onStage: (line) => console.error(line) });
const files = writeStaged(staged.stages, {
  outDir: new URL('../src/generated', import.meta.url).pathname,
  fun: staged.fun,
  bind: config.bind,
  origin: 'dot.config.json',
  config: config.file,
});
console.error(`staged ${config.function}: ${files.stub}`);
