/** Back ends for kernel functions: this folder's only public entry point (today, JavaScript). */
export { type CompiledKernel, compileKernelJs, emitKernelJs } from './js.js';
