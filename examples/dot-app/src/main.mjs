// Run time: the weights arrive. The staged pipeline specializes the kernel to them (checking
// that they fit what was staged for), the JS back end compiles the result, and the app calls it.
import { compileKernelJs, printFun } from 'scf';
import { specialize } from './generated/dotproduct.stub.mjs';

const weights = process.argv[2] ? JSON.parse(process.argv[2]) : [0, 1, 7];
const { fun, staged } = specialize({ v2: weights, s: weights.length });
console.log(`// specialized ${staged ? 'by the staged pipeline' : 'by the unstaged pipeline'}`);
console.log(printFun(fun));
const kernel = compileKernelJs({ kind: 'cons', head: fun, tail: { kind: 'nil' } }, fun.name);
const v1 = weights.map((_, i) => i + 1);
console.log(JSON.stringify({ v1, result: kernel.run({ v1, v2: weights, s: weights.length }).result }));
